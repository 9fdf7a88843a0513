"""Template family G, the holdout5 set's: the concepts and canonical property names of family
A, written afresh from general everyday English as people chat (mostly British, with
contractions, idioms and casual speech); the other families' modules were read for their
structure and placeholders only, their sentences neither copied nor paraphrased, and the
library's extraction rules (``apexmem_neo``) were not read at all. It shares no phrasing, no
value and no name with A, B, C, D, E or F (the unit tests check; where a first draft met
another family's phrasing, name or value the check named it and it was rewritten). Some of
its lines are harder but fair: a pronoun standing for the person or the thing, two clauses in
one turn, an idiom for a change or an ending, a place named in passing in small talk, and a
third party's value beside a remark of the speaker's own. The holdout5 set
(``generator.SETS["holdout5"]``) is read only for one final evaluation; nobody tunes on these
words.

Placeholders as in ``templates``: {value} the new value, {old} the earlier one, {when}/{When}
a relative time, {name}/{rel} a third party and the relation, {p} the person a question is
about, {date} an as-of time ("as things stood in March 2024", "as things stood on 14 March
2024").
"""

from __future__ import annotations

from benchmarks.construction_quality.templates import Family, RelativeTime, Wording

FAMILY_G = Family(
    name="G",
    subjects=("Henrietta", "Kwabena", "Anouk", "Thabo", "Clementine", "Emeka", "Niamh", "Ignacio"),
    others=("Fenella", "Otis", "Esperanza", "Bartek", "Yusra", "Lachlan"),
    third_parties=(("Fergal", "stepdad"), ("Winifred", "nan"), ("Dapo", "workmate"),
                   ("Pippa", "goddaughter"), ("Fintan", "old school friend"),
                   ("Perpetua", "auntie")),
    values={
        "lives_in": ("Inverness", "Dundee", "Tallahassee", "Ballarat", "Truro", "Shreveport",
                     "Exeter", "Kilkenny", "Grenoble", "Aberystwyth", "Harrogate",
                     "Kalamazoo"),
        "employer": ("Quillfeather Publishing", "Northgate Pharmacy", "Ridgeway Builders",
                     "Saltmarsh Brewery", "Kestrel Aviation", "Thistledown Software",
                     "Hollis Engineering", "Marlowe Vet Clinic", "Birchwood Care Home",
                     "Tinderbox Games"),
        "favourite_restaurant": ("The Wonky Ladle", "Cantina Verde", "Mama Ngozi's",
                                 "Istanbul Grill", "Ramen Ya", "Bangkok Alley",
                                 "Harissa House", "Smokehouse 54", "Chez Margot",
                                 "Dumpling Den"),
        "car": ("Chrysler Voyager", "Saab 9-3", "Rover 75", "Lada Niva", "Hyundai i10",
                "Jaguar XF", "Smart ForTwo", "Cupra Born", "Daihatsu Charade"),
        "hobby": ("canoe polo", "pickleball", "whittling", "life drawing", "stargazing",
                  "barbershop singing", "metal detecting", "kitesurfing", "fly fishing"),
    },
    wordings={
        "lives_in": Wording(
            state=("We've got a little semi in {value}, nothing fancy but it's ours.",
                   "I'm based in {value}, have been for a good while now.",
                   "My place is in {value}; the commute's fine but it never stops raining "
                   "there."),
            change=("These days I'm waking up in {value}, not {old}, and the quiet takes some "
                    "adjusting to.",
                    "{old} is behind me now; I've signed a lease on somewhere in {value}.",
                    "I've swapped {old} for {value}, and the new neighbours already brought "
                    "round a cake."),
            change_dated=("{When} we loaded the van in {old} and drove down to our new place "
                          "in {value}.",
                          "I relocated from {old} to {value} {when}, mainly to be nearer my "
                          "mum."),
            negate_dated=("I let the flat in {old} go {when}, so I'm between places and "
                          "kipping on a sofa.",
                          "{When} I left {old} for good, and I've been house-sitting for "
                          "friends ever since."),
            after_negation=("I've finally got an address again: a little flat in {value}.",
                            "Got myself somewhere at last, a one-bed above a bakery in "
                            "{value}."),
            stable_other=("I've never lived anywhere but {value}, me; my whole family's "
                          "there.",
                          "Same house in {value} for twenty-two years, for my sins."),
            third_party=("My {rel} {name} has put down roots in {value}, of all places.",
                         "{name}, my {rel}, rang last night: they've just moved to {value}.",
                         "Did I tell you my {rel} {name} lives in {value} now? I've still "
                         "not visited."),
            now="Which town or city does {p} call home at the moment?",
            as_of="What city was {p}'s home {date}?",
            when="Roughly when did {p} relocate to {value}?",
            before="Which place did {p} call home before moving to {value}?",
        ),
        "employer": Wording(
            state=("I'm a dispatcher at {value}, mostly nights, which suits me.",
                   "I look after the accounts at {value}; steady work, decent people.",
                   "Work-wise? {value}. I'm on the front desk there, five days a week."),
            change=("{old} is behind me, I work for {value} now, and the commute is half as "
                    "long.",
                    "These days I'm on the {value} team rather than {old}, and honestly it's "
                    "night and day.",
                    "I jumped ship from {old} to {value}, same sort of work but a far nicer "
                    "boss."),
            change_dated=("My first shift at {value} was {when}, and {old} already feels "
                          "like a lifetime ago.",
                          "I took up a post at {value} {when}, once I'd worked my notice at "
                          "{old}."),
            negate_dated=("I was made redundant from {old} {when} and I've been signing on "
                          "since.",
                          "{When} {old} and I went our separate ways, and I haven't found "
                          "anything since."),
            after_negation=("Back in work, thank goodness: {value} took me on.",
                            "Good news, I'm employed again, at {value} of all places."),
            stable_other=("I've worked at {value} my whole career, never even applied "
                          "anywhere else.",
                          "{value}'s had me for eighteen years; I'll probably retire from "
                          "there."),
            third_party=("My {rel} {name} has gone to work for {value}; {name} reckons the "
                         "pay's decent.",
                         "{name} (my {rel}) has just been hired by {value}, which is brilliant.",
                         "You know my {rel} {name}? Works at {value} now, in their marketing "
                         "team."),
            now="Who employs {p} at present?",
            as_of="Who was {p} employed by {date}?",
            when="When did {p} go to work for {value}?",
            before="Which company employed {p} just before {value}?",
        ),
        "favourite_restaurant": Wording(
            state=("If I could eat at one place forever it'd be {value}, hands down.",
                   "{value} is my number one restaurant; I'd go weekly if I could.",
                   "Nowhere beats {value} for me, honestly, it's my favourite spot to eat "
                   "out."),
            change=("{old} used to be my favourite, but {value} has stolen my heart now.",
                    "I've gone right off {old}; {value} is my top restaurant these days.",
                    "Forget {old}; for a meal out, {value} is where it's at now."),
            change_dated=("{When} a mate dragged me to {value}, and it's been my go-to ever "
                          "since; {old} can't compete.",
                          "I've preferred {value} over {old} since my birthday dinner there "
                          "{when}."),
            negate_dated=("I no longer rate {old}: {when} I was ill for two days after eating "
                          "there.",
                          "{old} changed hands {when} and it's gone downhill, so I haven't "
                          "got a favourite place right now."),
            after_negation=("Discovered {value} and fell head over heels, so that's my favourite "
                            "restaurant sorted; the bread alone is worth the trip.",
                            "Right, I've got a favourite restaurant again, and it's {value}."),
            stable_other=("I've rated {value} top of the pile since my twenties; nothing "
                          "else touches it.",
                          "Me, I'm loyal to {value}, I've not found better in all these "
                          "years."),
            third_party=("My {rel} {name} swears by {value} now and won't eat anywhere else.",
                         "{name}, my {rel}, now rates {value} above anywhere else to eat. Not "
                         "my cup of tea."),
            now="What's {p}'s favourite restaurant right now?",
            as_of="Which place to eat did {p} like best {date}?",
            when="When did {value} become {p}'s best-loved restaurant?",
            before="Which restaurant was {p}'s favourite until {value} took over?",
        ),
        "car": Wording(
            state=("I get about in a {value}; it's old but it's reliable.",
                   "There's a {value} on my drive; that's my runaround.",
                   "My car? A {value}, silver, boringly sensible."),
            change=("Part-exchanged the {old} and I'm now driving a {value}.",
                    "The {old}'s gone; it's a {value} I'm driving now.",
                    "My {value} drives like a dream; can't believe I put up with the {old} "
                    "for so long."),
            change_dated=("I collected my {value} {when} and flogged the {old} to a lad down "
                          "the road.",
                          "{When} the {old} went to a buyer off the internet; I've been "
                          "driving a {value} since."),
            negate_dated=("The {old} failed its MOT {when} and went for scrap, so I'm carless at "
                          "present.",
                          "I no longer have the {old}; I sold it {when}, and I'm cycling "
                          "everywhere."),
            after_negation=("I'm motoring again: a {value}, only one previous owner.",
                            "Wheels again at last! A {value}, and I'm thrilled."),
            stable_other=("I've had my {value} since it was new, and I'll drive it till it "
                          "falls apart.",
                          "Still running the same {value} I bought after uni; never had "
                          "another car."),
            third_party=("My {rel} {name} just bought a {value}, so I'm getting lifts "
                         "everywhere.",
                         "{name}, my {rel}, is driving a {value} these days; it's a bit flash "
                         "for round here."),
            now="Which car does {p} drive now?",
            as_of="Which car was {p} running {date}?",
            when="When did {p} end up with the {value}?",
            before="What did {p} drive before the {value}?",
        ),
        "hobby": Wording(
            state=("Outside work it's all {value} for me; I'd do it every day if I could.",
                   "My thing at weekends is {value}, I'm part of a little club.",
                   "Evenings I unwind with {value}, it's my favourite pastime."),
            change=("I had fun with {old} while it lasted, but I'm all about {value} now.",
                    "I've gone off {old} completely, it's {value} that I'm hooked on these "
                    "days.",
                    "Sold all my {old} stuff, {value} is the new obsession."),
            change_dated=("{When} I joined a {value} group, and I haven't bothered with {old} "
                          "since.",
                          "I took up {value} {when}, and {old} has been gathering dust since."),
            negate_dated=("I stopped doing {old} {when}; there's no hobby in my life right "
                          "now.",
                          "{When} I knocked {old} on the head, and I've not got a pastime "
                          "these days."),
            after_negation=("I've picked up a new hobby, {value}, and I'm loving it.",
                            "No more moping about at weekends; it's {value} for me now."),
            stable_other=("It's {value} for me, always has been; I've done it since I was "
                          "knee-high.",
                          "Me, I've stuck with {value} for donkey's years and never fancied "
                          "anything else."),
            third_party=("My {rel} {name} has taken up {value}; I can't see the appeal "
                         "myself.",
                         "{name}, my {rel}, has caught the {value} bug and talks about "
                         "nothing else."),
            now="What does {p} do for a hobby these days?",
            as_of="What hobby did {p} have {date}?",
            when="When did {p} first get into {value}?",
            before="Before {value}, what was {p}'s pastime?",
        ),
    },
    greetings=("Ooh, {name}! Come in, come in, how've you been?",
               "Morning, {name}! Kettle's on, sit yourself down.",
               "{name}, hiya! It's been ages."),
    openers=("Right then, {name}, what's been happening since we last spoke?",
             "So come on, {name}, any news?"),
    fillers=("The bin men skipped our street again, it's a disgrace.",
             "Cracked the screen on my phone this morning, so excuse the typos.",
             "It's been raining non-stop, my garden's a swamp.",
             "Spent all of Sunday at a christening in Tralee, I'm shattered.",
             "My neighbour's dog got out again and ate half my tomatoes.",
             "Queued forty minutes at the post office earlier, unbelievable."),
    reactions=("Get away, really?", "Blimey, good for you.", "Crikey, that's news to me."),
    corrections=("Hang on, I misspoke, it's {value}, not {old}.",
                 "Wait, not {old}, sorry: {value}. Too little sleep, clearly.",
                 "Scratch that last bit: I meant {value}; {old} was a slip of the tongue."),
    relative=(RelativeTime("eleven days ago", "days", 11),
              RelativeTime("a week ago yesterday", "days", 8),
              RelativeTime("at some point in {month}", "months", 1)),
    as_of_month="as things stood in {month} {year}",
    as_of_day="as things stood on {day} {month} {year}",
)  # fmt: skip
