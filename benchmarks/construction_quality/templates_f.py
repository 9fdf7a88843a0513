"""Template family F, the holdout4 set's: the concepts and canonical property names of family
A, written afresh from general everyday English as people chat (British and American, with
contractions and casual speech); the other families' modules were read for their structure
and placeholders only, their sentences neither copied nor paraphrased, and the library's
extraction rules (``apexmem_neo``) were not read at all. It shares no phrasing, no value and
no name with A, B, C, D or E (the unit tests check; where a first draft met another family's
phrasing, name or value the check named it and it was rewritten). Its phrasings lean on
indirect changes (a change implied by what someone does now), on negations and corrections,
and on third parties' facts mentioned beside the speaker's. The holdout4 set
(``generator.SETS["holdout4"]``) is read only for one final evaluation; nobody tunes on these
words.

Placeholders as in ``templates``: {value} the new value, {old} the earlier one, {when}/{When}
a relative time, {name}/{rel} a third party and the relation, {p} the person a question is
about, {date} an as-of time ("back in March 2024", "back on March 14, 2024").
"""

from __future__ import annotations

from benchmarks.construction_quality.templates import Family, RelativeTime, Wording

FAMILY_F = Family(
    name="F",
    subjects=("Marcy", "Dwayne", "Kelsey", "Rohan", "Bethany", "Callum", "Lupita", "Travis"),
    others=("Deirdre", "Malik", "Tess", "Gareth", "Shauna", "Vikram"),
    third_parties=(("Jolene", "stepmum"), ("Hamish", "best mate"), ("Ramona", "grandma"),
                   ("Lonnie", "uncle"), ("Desiree", "sister-in-law"), ("Kieran", "godson")),
    values={
        "lives_in": ("Leeds", "Swansea", "Norwich", "Limerick", "Sheffield", "Des Moines",
                     "Bakersfield", "Ipswich", "Lubbock", "Cairns", "Toledo", "Stockport"),
        "employer": ("Pinecrest Logistics", "Redfern Dental", "Copperleaf Insurance",
                     "Stonebridge Bank", "Brightline Telecom", "Oakhurst Academy",
                     "Meridian Print Works", "Tidewater Shipping", "Foxglove Media",
                     "Greenvale Hospital"),
        "favourite_restaurant": ("Dosa Express", "Big Sal's Pizzeria", "Wok This Way",
                                 "The Salt Cellar", "Taqueria Luna", "Pierogi Palace",
                                 "Thai Orchid", "Bella Napoli", "Seoul Kitchen",
                                 "Falafel King"),
        "car": ("Toyota Prius", "Ford Fiesta", "Honda Jazz", "Kia Sportage", "Suzuki Swift",
                "Vauxhall Corsa", "Seat Ibiza", "Chevy Silverado", "Volkswagen Passat"),
        "hobby": ("darts", "roller derby", "scrapbooking", "rollerblading",
                  "model railways", "bell ringing", "sea fishing", "amateur dramatics",
                  "paddleboarding"),
    },
    wordings={
        "lives_in": Wording(
            state=("I'm renting a tiny terrace in {value} with two flatmates and a very loud "
                   "boiler.",
                   "Yeah, I live out in {value}, about ten minutes' walk from my folks.",
                   "Home's {value} for me, y'know, a little apartment over a laundromat."),
            change=("Still unpacking boxes here in {value}; I don't miss {old} one bit.",
                    "Got my first council tax bill from {value} this week, so {old} is well "
                    "and truly over.",
                    "I catch the bus across {value} every morning now, and {old} feels like "
                    "another life."),
            change_dated=("{When} the movers carried my last box into an apartment in {value}; "
                          "bye-bye {old}.",
                          "We finally drove out of {old} {when}, and the van pulled up in "
                          "{value} that same evening."),
            negate_dated=("My lease in {old} ran out {when} and I didn't renew, so right now "
                          "I'm crashing in a mate's spare room.",
                          "{When} I moved every last thing out of my place in {old}; I'm "
                          "living out of a suitcase till I find somewhere."),
            after_negation=("Sofa-surfing is over, thank God: I've signed for a flat in "
                            "{value}.",
                            "Found somewhere at last! {value} is where I've landed, and it's "
                            "lovely."),
            stable_other=("Me, I'm {value} born and bred, and I'll be staying there.",
                          "Thirty years in {value} and I've not once wanted to live anywhere "
                          "else."),
            third_party=("My {rel} {name}'s just bought a flat in {value}, so I'll have "
                         "somewhere to crash.",
                         "Oh, and {name} (my {rel}) upped sticks and went to {value}, totally "
                         "out of the blue.",
                         "My {rel} {name} keeps sending me photos of the new place in "
                         "{value}."),
            now="Where is {p} living right now?",
            as_of="Where was {p} living {date}?",
            when="When did {p} end up in {value}?",
            before="And before {value}, which city was {p} living in?",
        ),
        "employer": Wording(
            state=("I'm a project coordinator over at {value}, been there about four years.",
                   "I do HR at {value}, nine to five, nothing glamorous.",
                   "{value} pays my bills; I sort out their payroll."),
            change=("First payslip from {value} landed today, way better than what {old} paid "
                    "me.",
                    "I keep walking toward the {old} building out of habit, but it's {value} "
                    "I report to now.",
                    "Ran into my old boss from {old} at the shops; awkward, since I'm at "
                    "{value} now."),
            change_dated=("I kicked off at {value} {when}, after six years stuck at {old}.",
                          "I switched over from {old} to {value} {when}, and the team's been "
                          "lovely."),
            negate_dated=("{old} let me go {when}, budget cuts, so I'm job hunting right now.",
                          "I packed in my job at {old} {when}, and I'm taking some time off "
                          "before looking for anything new."),
            after_negation=("The unemployment's over: I'm working for {value} these days and "
                            "loving it.",
                            "{value} gave me a contract, so no more scrolling through job ads "
                            "for me."),
            stable_other=("I've clocked in at {value} every weekday for fifteen years now.",
                          "{value} hired me straight out of school and I've never worked "
                          "anywhere else."),
            third_party=("You'll never guess who {value} took on: my {rel} {name}!",
                         "My {rel} {name} has just started at {value}, so proud of {name}.",
                         "My {rel} {name} is on the books at {value} now, apparently the "
                         "canteen's amazing."),
            now="Where's {p} working at the minute?",
            as_of="Which firm was {p} at {date}?",
            when="When did {p} start the job at {value}?",
            before="Before {value}, who was {p} working for?",
        ),
        "favourite_restaurant": Wording(
            state=("Best restaurant in the world, in my book? {value}, no contest.",
                   "Whenever we eat out I push for {value}; it's my fave, full stop.",
                   "If you're asking my all-time favorite restaurant, it's {value}."),
            change=("Honestly, {value} has knocked {old} off the top spot for me.",
                    "I'm at {value} so often the staff wave when I walk in; {old} doesn't hold "
                    "a candle to it now.",
                    "My new favourite is {value}; {old} just doesn't do it for me anymore."),
            change_dated=("I gave {value} a go {when}, and it's beaten {old} as "
                          "my favourite ever since.",
                          "{When} {value} opened round the corner from me, and I've rated it "
                          "above {old} from day one."),
            negate_dated=("I found a hair in my soup at {old} {when}, and that was the end of "
                          "it being my favourite.",
                          "{old} doubled its prices {when}, so I've crossed it off as my "
                          "favourite."),
            after_negation=("At long last there's a new favourite: {value}, their lunch specials "
                            "are unreal.",
                            "Finally, a restaurant I'm properly obsessed with again: {value}."),
            stable_other=("For me it's been {value} since uni, I won't hear a word against "
                          "it.",
                          "I'd happily eat at {value} seven nights a week, it's always been my "
                          "favourite."),
            third_party=("My {rel} {name} is convinced {value} is the greatest place to eat "
                         "on earth and drags everyone there.",
                         "If you ask my {rel} {name}, {value} is the only restaurant worth "
                         "going to now."),
            now="Which restaurant is {p}'s current favourite?",
            as_of="Which restaurant did {p} love most {date}?",
            when="When did {p} start rating {value} above every other restaurant?",
            before="Which restaurant did {p} rate highest before {value}?",
        ),
        "car": Wording(
            state=("I'm driving a {value}, dented bumper, never once failed to start.",
                   "My wheels are a {value}, bright red, you can't miss it.",
                   "I get to work in my {value}, forty minutes each way."),
            change=("Filled up my new {value} today; way thirstier than "
                    "the {old}.",
                    "Parking the {value} is a nightmare compared to the {old}, but I love it.",
                    "Still learning where everything is on my {value}, so many buttons! The "
                    "{old} was so basic."),
            change_dated=("{When} I drove a {value} off the forecourt and said cheerio to the "
                          "{old}.",
                          "I finally upgraded from the {old} to a {value} {when}."),
            negate_dated=("The {old} died on the motorway {when} and it's not worth fixing, so "
                          "I'm walking everywhere.",
                          "I sold the {old} {when}; I'm car-free and taking the train "
                          "everywhere."),
            after_negation=("I'm mobile again: bought myself a second-hand {value}.",
                            "Guess what's parked on my drive? A {value}, and it's all mine."),
            stable_other=("Same {value} for twelve years now; I know every rattle.",
                          "My {value} has a quarter of a million miles on it and it's still my "
                          "daily driver."),
            third_party=("Have you seen my {rel} {name}'s new {value}? Proper fancy.",
                         "My {rel} {name} finally passed the driving test and got a {value}."),
            now="What car has {p} got at the moment?",
            as_of="Which car did {p} own {date}?",
            when="When did the {value} become {p}'s car?",
            before="Which car did {p} get rid of for the {value}?",
        ),
        "hobby": Wording(
            state=("Most Saturdays you'll find me doing {value}, it's what keeps me from "
                   "going round the bend.",
                   "I'm really into {value} at the mo, it's my main hobby.",
                   "I've got a bit of a {value} habit; that's what I do with my free time."),
            change=("Flogged my {old} gear to pay for {value} lessons.",
                    "My evenings are all {value} now; I honestly couldn't tell you when I last "
                    "did any {old}.",
                    "Turns out I'm way happier doing {value} than I ever was with {old}."),
            change_dated=("I enrolled on a {value} course {when} and haven't touched {old} "
                          "since.",
                          "{When} I ditched {old} and got into {value} instead."),
            negate_dated=("{When} I called it a day on {old}; haven't got a hobby at the "
                          "moment.",
                          "I packed in {old} {when}, lost interest, honestly."),
            after_negation=("I've found something new to fill my weekends: {value}.",
                            "Took a taster class in {value} and now I'm doing it three nights a "
                            "week."),
            stable_other=("I've done {value} every Sunday morning for twenty-odd years.",
                          "{value} has been my weekend thing since forever."),
            third_party=("My {rel} {name} has got really into {value}, there's gear all over "
                         "the house.",
                         "Turns out my {rel} {name} is a total {value} nut now, who knew?"),
            now="What does {p} do for fun nowadays?",
            as_of="What did {p} do for fun {date}?",
            when="At what point did {p} get hooked on {value}?",
            before="What did {p} do for fun before getting into {value}?",
        ),
    },
    greetings=("{name}! Oh my gosh, come here, how are you?",
               "Alright {name}? How's tricks?",
               "Hey hey, {name}, how's your week been?"),
    openers=("So, {name}, what's the latest with you?",
             "Go on then, {name}, fill me in. Anything new?"),
    fillers=("Ugh, the guy upstairs has been drilling since seven this morning.",
             "I burnt the toast again, smoke alarm and everything.",
             "Have you tried that new oat milk? It's weirdly good.",
             "We had a power cut last night and I ended up eating dinner by candlelight.",
             "I've lost my reading glasses three times today.",
             "The kids' school has another inset day on Friday, I swear they're never there."),
    reactions=("Ooh, get you!", "Wait, seriously?", "Huh, fair play."),
    corrections=("Scratch that, I got my words muddled: {value}, not {old}.",
                 "No wait, that's wrong, it's {value}; I don't know why I said {old}.",
                 "Sorry, {old}? What am I on about. {value}, obviously."),
    relative=(RelativeTime("a fortnight ago", "days", 14),
              RelativeTime("three weeks ago", "days", 21),
              RelativeTime("during {month}", "months", 1)),
    as_of_month="back in {month} {year}",
    as_of_day="back on {month} {day}, {year}",
)  # fmt: skip
