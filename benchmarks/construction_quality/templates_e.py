"""Template family E, the holdout3 set's: the concepts and canonical property names of family
A, written afresh from general everyday English (``templates`` and ``templates_d`` read for
their structure and placeholders, their sentences neither copied nor paraphrased;
``templates_c`` not read), and sharing no phrasing, no value and no name with A, B, C or D
(the unit tests check; where a first draft met another family's phrasing, name or value the
check named it and it was replaced). Its phrasings lean on indirect ways people say a change,
on corrections and negations, and on third parties' facts mentioned beside the speaker's. The
holdout3 set (``generator.SETS["holdout3"]``) is read only for one final evaluation; nobody
tunes on these words.

Placeholders as in ``templates``: {value} the new value, {old} the earlier one, {when}/{When}
a relative time, {name}/{rel} a third party and the relation, {p} the person a question is
about, {date} an as-of time ("March 2024", "March 14, 2024").
"""

from __future__ import annotations

from benchmarks.construction_quality.templates import Family, RelativeTime, Wording

FAMILY_E = Family(
    name="E",
    subjects=("Tamsin", "Barnaby", "Ngozi", "Evander", "Luzia", "Thaddeus", "Araminta", "Obinna"),
    others=("Solveig", "Dario", "Philippa", "Rutger", "Aiko", "Lucian"),
    third_parties=(("Bronwyn", "godmother"), ("Augustin", "flatmate"), ("Hedda", "stepsister"),
                   ("Ezekiel", "colleague"), ("Florence", "niece"),
                   ("Matthias", "brother-in-law")),
    values={
        "lives_in": ("Aberdeen", "Gothenburg", "Plovdiv", "Trondheim", "Wollongong", "Bilbao",
                     "Salzburg", "Knoxville", "Tampere", "Antwerp", "Hobart", "Saskatoon"),
        "employer": ("Kestrel Freight", "Larkspur Software", "Thornbury Foods",
                     "Silverbirch Consulting", "Bramblewood Studios", "Harrowgate Engineering",
                     "Mossgiel Pharma", "Wexford Mutual", "Cinderpath Games",
                     "Alderley Textiles"),
        "favourite_restaurant": ("Trattoria Vesuvio", "Lemongrass Shack", "The Crooked Spoon",
                                 "Casa Paloma", "Curry Leaf Kitchen", "Bao Down",
                                 "Harbourside Chippy", "Pelmeni Point", "Sourdough Social",
                                 "Kebab Brothers"),
        "car": ("Dacia Duster", "Volvo V70", "Hyundai Kona", "Mazda MX-5", "Subaru Forester",
                "Skoda Fabia", "Lancia Ypsilon", "Jaguar XE", "Polestar 2"),
        "hobby": ("geocaching", "parkour", "quilting", "tap dancing", "wild swimming",
                  "mountain biking", "glassblowing", "crochet", "juggling"),
    },
    wordings={
        "lives_in": Wording(
            state=("I'm in {value} at the moment, renting a little place above a bakery.",
                   "I rent a one-bed in {value}, it's been six years now.",
                   "My flat's in {value}, right by the train station."),
            change=("The removal van just dropped the last of our stuff in {value}; no more "
                    "{old} for us.",
                    "I've swapped {old} for {value}, and I still get lost going to the "
                    "supermarket.",
                    "My driving licence has my {value} address on it now, since I left {old}."),
            change_dated=("We completed on a terraced house in {value} {when}, and {old} is "
                          "in the rear-view mirror.",
                          "{When} I said my goodbyes in {old} and started over in {value}."),
            negate_dated=("I gave notice on my place in {old} and moved out {when}, so for the "
                          "time being my mum's sofa is my bed.",
                          "{When} we sold the house in {old}, so we're between homes at the "
                          "moment.",
                          "I'm not in {old} anymore; my last night there was {when}."),
            after_negation=("No more sleeping on sofas: I've got my own front door in {value} "
                            "now.",
                            "I've put down roots again, this time in {value}."),
            stable_other=("My family has lived in {value} for three generations, and so have I.",
                          "I've had the same address in {value} since I was twenty."),
            third_party=("Funny thing, my {rel} {name} is the one who moved, not me: {name} "
                         "lives in {value} now.",
                         "We spent the weekend helping my {rel} {name} settle into a new flat "
                         "in {value}.",
                         "Not me, but my {rel} {name} has packed up and gone to live in "
                         "{value}."),
            now="What's {p}'s home city at present?",
            as_of="As of {date}, which city did {p} call home?",
            when="When did {p} start living in {value}?",
            before="Which city had {p} been living in until the move to {value}?",
        ),
        "employer": Wording(
            state=("I'm on the data team at {value}, three days in the office and two at home.",
                   "I do the accounts for {value}, which is duller than it sounds.",
                   "I answer the phones in customer support for {value}."),
            change=("I'm doing onboarding at {value} at the moment, so {old} is officially "
                    "behind me.",
                    "I returned my laptop to {old} and {value} gave me a shiny new one.",
                    "It's {value} who pays me now; {old} and I parted ways."),
            change_dated=("I started my new role at {value} {when}, and {old} threw me a "
                          "leaving do.",
                          "{When} I began working for {value}, and honestly I don't miss {old} "
                          "at all."),
            negate_dated=("They made my whole department at {old} redundant {when}, so I'm out "
                          "of work for now.",
                          "{When} I told {old} I was done and handed in my laptop; I'm taking a "
                          "break from work for a bit."),
            after_negation=("{value} rang me with an offer and I said yes, so I'm back at work.",
                            "The interview went better than I expected; I'm part of {value} "
                            "now."),
            stable_other=("I've worked for {value} since I left university and I'm not going "
                          "anywhere.",
                          "I'm a lifer at {value}, they'll have to carry me out."),
            third_party=("My {rel} {name} has landed a job at {value}, which I'm a bit jealous "
                         "of.",
                         "While I'm stuck in the same job, my {rel} {name} has gone off to work "
                         "for {value}."),
            now="Who does {p} work for at this point?",
            as_of="Who was {p}'s employer around {date}?",
            when="When did {p} begin at {value}?",
            before="Which company was {p} at until joining {value}?",
        ),
        "favourite_restaurant": Wording(
            state=("If I'm treating myself it's always {value}; I love that place more than "
                   "anywhere.",
                   "{value} is my absolute favourite; the waiters know my order by heart.",
                   "Birthday dinners are always at {value} for me, I adore it."),
            change=("I keep booking tables at {value} rather than {old}; it's pulled ahead "
                    "of every other place I know.",
                    "{value} has won me over completely; {old} just can't compete anymore.",
                    "The loyalty card I actually use these days is the one from {value}, not "
                    "{old}."),
            change_dated=("A friend dragged me to {value} {when} and now I'd pick it over {old} "
                          "every time.",
                          "{When} I had the best meal of my life at {value}, and now {old} is "
                          "only my second choice."),
            negate_dated=("{old} changed owners {when} and the menu's awful now, so I've "
                          "stopped going.",
                          "I got food poisoning at {old} {when}; it's definitely not my "
                          "favourite anymore."),
            after_negation=("Good news for my stomach: I've discovered {value}, and I'm there "
                            "most weekends.",
                            "{value} is where you'll find me on date night now."),
            stable_other=("I've been going to {value} since it opened, and nowhere else comes "
                          "close.",
                          "Ask anyone, I'm {value}'s most loyal customer."),
            third_party=("My {rel} {name} won't eat anywhere but {value} now, it's become "
                         "{name}'s favourite.",
                         "I'm not fussed myself, but my {rel} {name} goes to {value} every week "
                         "and loves it most of all."),
            now="At the moment, which restaurant would {p} call their favourite?",
            as_of="Around {date}, where did {p} most love to eat out?",
            when="When did {p} start preferring {value} to everywhere else?",
            before="Which restaurant was {p}'s top choice until {value} came along?",
        ),
        "car": Wording(
            state=("My car's a {value}, covered in dog hair but reliable as anything.",
                   "I do the school run in a {value} every morning.",
                   "I've got a {value}; the boot fits the whole family's luggage."),
            change=("I've had to get new insurance because I'm driving a {value} now instead "
                    "of the {old}.",
                    "The {old} has gone to a new owner and a {value} has taken its spot in my "
                    "garage.",
                    "Still getting used to the gears on my {value}; the {old} was an "
                    "automatic."),
            change_dated=("I collected my {value} from the showroom {when} and the {old} went "
                          "back at the end of its lease.",
                          "{When} the {old} failed its inspection, so I bought a {value} the "
                          "same afternoon."),
            negate_dated=("Someone reversed into my {old} {when} and it was written off, so "
                          "I'm getting the bus.",
                          "{When} I handed the {old} over to a student who needed it; I'm "
                          "cycling everywhere for now."),
            after_negation=("A {value} with barely any miles on it is sitting outside my house, "
                            "and it's mine.",
                            "Goodbye, bus timetable: I've bought myself a {value}."),
            stable_other=("I've driven a {value} since before my kids were born.",
                          "My {value} is older than my nephew and I'll never sell it."),
            third_party=("My {rel} {name} has traded up to a {value}, very posh.",
                         "I'm still on my bike, but my {rel} {name} has gone and got a "
                         "{value}."),
            now="What kind of car does {p} have at present?",
            as_of="Around {date}, what car was {p} getting about in?",
            when="When did {p} get hold of the {value}?",
            before="What did {p} drive until switching to the {value}?",
        ),
        "hobby": Wording(
            state=("Weekends for me are all about {value}, it's how I switch off.",
                   "I spend most evenings on {value}; my partner thinks I'm obsessed.",
                   "Outside work, {value} is my thing."),
            change=("I've joined a {value} club, and {old} can gather dust for all I care.",
                    "My shelves are full of {value} books now, and I've stopped bothering "
                    "with {old}.",
                    "These days my weekends go on {value}; {old} just stopped being fun."),
            change_dated=("{When} I had my first {value} lesson, and I've packed in {old} "
                          "since.",
                          "I fell for {value} {when}, so {old} doesn't get a look-in now."),
            negate_dated=("I put my {old} things in the loft {when}; I just don't have the "
                          "energy anymore.",
                          "{When} I decided {old} wasn't for me anymore and stopped."),
            after_negation=("Guess who's found a new pastime: me! It's {value}, and I'm "
                            "terrible at it.",
                            "Lately I've thrown myself into {value}, it's become my new hobby."),
            stable_other=("I've been mad about {value} since my teens.",
                          "Nothing will pull me away from {value}, it's been decades."),
            third_party=("My {rel} {name} has started doing {value}, and it's all {name} "
                         "talks about.",
                         "I've got no time for hobbies, but my {rel} {name} goes to {value} "
                         "classes twice a week now."),
            now="What does {p} do in their spare time these days?",
            as_of="Around {date}, what was {p}'s favourite pastime?",
            when="Roughly when did {p} first pick up {value}?",
            before="What was {p} into until {value} took over?",
        ),
    },
    greetings=("{name}, there you are! How's everything going?",
               "Oh hi {name}, fancy running into you here.",
               "Evening, {name}! Pull up a chair."),
    openers=("Right, {name}, catch me up, what have I missed?",
             "{name}, it feels like forever. What's been happening with you?"),
    fillers=("The traffic on the ring road this morning was unbelievable.",
             "My cat knocked a whole glass of water onto my keyboard last night.",
             "Is it just me, or are the days getting shorter really fast?",
             "The corner shop has started selling cinnamon buns, which is dangerous news.",
             "I've had one song stuck in my head since Tuesday.",
             "The dog next door barked at the postman for an hour straight."),
    reactions=("Blimey, that's news.", "Oh, how exciting!", "Really? Tell me more."),
    corrections=("Hold on, did I say {old}? I meant {value}.",
                 "Ugh, ignore me, not {old}, it's {value}.",
                 "My brain's fried today: {old} is wrong, I meant to say {value}."),
    relative=(RelativeTime("six days ago", "days", 6),
              RelativeTime("eight days ago", "days", 8),
              RelativeTime("one day in {month}", "months", 1)),
    as_of_month="{month} {year}",
    as_of_day="{month} {day}, {year}",
)  # fmt: skip
