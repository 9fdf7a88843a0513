"""Template family H, the holdout6 set's: the concepts and canonical property names of family
A, written afresh in a deliberately different register from A to G: American English as
people text each other (lowercase starts, contractions, slang and abbreviations, short
fragments), values given as answers to the other speaker's question, changes mostly implied
rather than announced, corrections made mid-sentence, and third parties (coworkers, exes,
roommates, in-laws) whose values are theirs, not the speaker's. Questions are asked the way a
user asks an assistant about a friend. The other families' modules were read for their
structure and placeholders only, their sentences neither copied nor paraphrased, and the
library's extraction rules (``apexmem_neo``) were not read at all. It shares no phrasing, no
value and no name with A, B, C, D, E, F or G (the unit tests check; where a first draft met
another family's phrasing, name or value the check named it and it was reworded, never the
check weakened). Every value a turn's truth holds is said in that turn. The holdout6 set
(``generator.SETS["holdout6"]``) is read only for one final evaluation; nobody tunes on these
words.

Placeholders as in ``templates``: {value} the new value, {old} the earlier one, {when}/{When}
a relative time, {name}/{rel} a third party and the relation, {p} the person a question is
about, {date} an as-of time ("in March of 2024", "as of March 14, 2024").
"""

from __future__ import annotations

from benchmarks.construction_quality.templates import Family, RelativeTime, Wording

FAMILY_H = Family(
    name="H",
    subjects=("Brayden", "Kaylee", "Tanner", "Destiny", "Jaxon", "Alondra", "Deshawn", "Kenzie"),
    others=("Makayla", "Cody", "Yesenia", "Trevor", "Shania", "Dustin"),
    third_parties=(("Rhonda", "mother-in-law"), ("Garrett", "coworker"), ("Skyler", "ex"),
                   ("Brandi", "roommate"), ("Earl", "brother-in-law"),
                   ("Tiffani", "old roommate")),
    values={
        "lives_in": ("Modesto", "Flagstaff", "Amarillo", "Billings", "Fargo", "Pensacola",
                     "Tuscaloosa", "Roanoke", "Scranton", "Peoria", "Topeka", "Reno"),
        "employer": ("Buckeye Freight", "Cedar Ridge Credit Union", "Lone Star Roofing",
                     "Redwood Dental", "Bluebonnet Insurance", "Sagebrush Analytics",
                     "Sunbelt Solar", "Westbrook Middle School", "Driftwood Marketing",
                     "Big Sky Staffing"),
        "favourite_restaurant": ("Waffle Shack", "Smokey Pete's BBQ", "El Torito Loco",
                                 "Wok n Roll", "Bayou Shrimp Hut", "Pizza Barn", "Tandoor Nights",
                                 "Sunny Side Diner", "The Crab Shanty", "Pho Real"),
        "car": ("Chevy Malibu", "Dodge Durango", "Ford Explorer", "Nissan Rogue", "Hyundai Sonata",
                "Buick LeSabre", "GMC Sierra", "Kia Telluride", "Toyota Tundra"),
        "hobby": ("cornhole", "axe throwing", "bass fishing", "line dancing", "crossfit",
                  "thrifting", "bowling", "cake decorating", "skateboarding"),
    },
    wordings={
        "lives_in": Wording(
            state=("me? {value}, same crappy apartment lol",
                   "{value}, born and raised. hbu?",
                   "oh we're out in {value}, rent's insane but whatever"),
            change=("just picked up the keys to my place in {value}!! bye {old} lol",
                    "yeah so i'm officially a {value} person now, {old} got way too pricey",
                    "inked a lease in {value} this morning, {old} is officially done"),
            change_dated=("{when} i finally got outta {old}, been in {value} ever since",
                          "i landed in {value} {when}, {old} was wearing me out"),
            negate_dated=("moved out of {old} {when}, crashing on a buddy's couch til i find "
                          "something",
                          "{when} i let my lease in {old} go, so i'm kinda between places rn"),
            after_negation=("found an apartment finally!! it's in {value}",
                            "ok housing drama over, i'm living in {value} now"),
            stable_other=("ha i've never left {value}, prob never will",
                          "same old {value} for me, been here forever"),
            third_party=("my {rel} {name} just closed on a house in {value}, wild",
                         "{name} (my {rel}) lives in {value} now. not me tho lol",
                         "oh and my {rel} {name} got relocated to {value}, free couch for "
                         "me there i guess"),
            now="remind me where {p} lives these days?",
            as_of="where'd {p} live {date}?",
            when="when'd {p} move out to {value}?",
            before="where was {p} before {value}?",
        ),
        "employer": Wording(
            state=("i'm at {value} doing mostly spreadsheets lol",
                   "work? {value}. customer support. don't ask",
                   "still clocking in at {value}, pays the rent so"),
            change=("new gig!! i'm at {value} now, {old} can kick rocks",
                    "finally ditched {old}, first day at {value} was today",
                    "got my badge at {value} this morning, peace out {old}"),
            change_dated=("started at {value} {when}, {old} is history",
                          "{when} i peaced out of {old} and signed on with {value}"),
            negate_dated=("so i got laid off from {old} {when}, job hunting rn",
                          "{when} was my last shift at {old}, not working for a bit, just "
                          "vibing"),
            after_negation=("good news, {value} hired me! started today",
                            "job hunt's over, i'm working at {value} now"),
            stable_other=("i've been at {value} like forever, not going anywhere",
                          "eh i'm a {value} lifer, they'll have to drag me out"),
            third_party=("my {rel} {name} just started at {value}, kinda jealous ngl",
                         "{name}, my {rel}, quit to go work for {value}. i'm staying put",
                         "guess who got hired at {value}? my {rel} {name} lol"),
            now="remind me where {p} works now?",
            as_of="who was {p} working for {date}?",
            when="when'd {p} start at {value}?",
            before="where'd {p} work before {value}?",
        ),
        "favourite_restaurant": Wording(
            state=("honestly {value}, could eat there 24/7",
                   "my go-to? {value}, hands down",
                   "fave spot is {value}, i'm there like every week"),
            change=("ok i've moved on from {old}, it's all {value} now lol",
                    "sorry {old} but {value} just hits different",
                    "{value} is my spot now, {old} who??"),
            change_dated=("tried {value} {when} and now i can't go back to {old}",
                          "{when} i found {value} and tbh {old} doesn't even compare"),
            negate_dated=("stopped going to {old} {when} after the food poisoning thing, no "
                          "fave rn",
                          "{when} was my last time at {old}, they jacked up the prices. don't "
                          "really have a spot now"),
            after_negation=("ok found a new spot!! {value}, go there asap",
                            "been eating at {value} nonstop, it's def my fave now"),
            stable_other=("{value} forever, i'm boring like that",
                          "i keep ending up at {value}, it's my place"),
            third_party=("my {rel} {name} is obsessed with {value}, i don't get it",
                         "{name} (my {rel}) drags everybody to {value} now, not my thing"),
            now="what's {p}'s go-to place to eat right now?",
            as_of="what was {p}'s fave restaurant {date}?",
            when="when did {value} turn into {p}'s fave spot?",
            before="what was {p}'s fave spot before {value}?",
        ),
        "car": Wording(
            state=("i drive a {value}, nothing fancy",
                   "oh i've got a {value}, she's old but she runs lol",
                   "my car? {value}. paid off too, thank god"),
            change=("finally ditched the {old} for a {value}!!",
                    "traded in the {old} today, drove off in a {value}",
                    "the {old} is gone, i'm rolling in a {value} now lol"),
            change_dated=("{when} i sold the {old} and got a {value}",
                          "picked up a {value} {when}, so long {old}"),
            negate_dated=("the {old} died on the highway {when}, so i'm carless rn",
                          "sold my {old} {when}, taking the bus til i find something"),
            after_negation=("got wheels again! a {value}",
                            "ok i caved and bought a {value}, bus life was killing me"),
            stable_other=("lol i still drive the same {value} from college",
                          "my {value}'s got 200k miles, never selling it lol"),
            third_party=("my {rel} {name} just got a {value}, so extra",
                         "{name}, my {rel}, is driving a {value} now. i'd never lol"),
            now="what's {p} driving these days?",
            as_of="what was {p}'s ride {date}?",
            when="since when has {p} had the {value}?",
            before="what'd {p} drive before the {value}?",
        ),
        "hobby": Wording(
            state=("mostly {value} lol, it's my whole personality",
                   "weekends? {value}, always",
                   "i do {value} when i'm not working, keeps me sane"),
            change=("kinda done with {old} tbh, i'm all about {value} now",
                    "{old} is out, {value} is in lol",
                    "sold all my {old} stuff, it's {value} every saturday now"),
            change_dated=("{when} i got into {value} and kinda forgot about {old}",
                          "started {value} {when}, no more {old} for me"),
            negate_dated=("i quit {old} {when}, just chilling on weekends now",
                          "{when} i gave up {old}, no hobbies rn honestly"),
            after_negation=("ok i found a new thing, {value}! i'm hooked",
                            "signed up for {value} today lol, new hobby unlocked"),
            stable_other=("{value} for me, been doing it since high school",
                          "i'm still big into {value}, never gets old"),
            third_party=("my {rel} {name} got really into {value}, won't shut up about it",
                         "{name} (my {rel}) is all into {value} now, i'm sticking to netflix "
                         "lol"),
            now="what's {p} into for fun lately?",
            as_of="what was {p} doing for fun {date}?",
            when="when'd {p} pick up {value}?",
            before="what was {p}'s thing before {value}?",
        ),
    },
    greetings=("heyyy {name} long time no talk",
               "yo {name}! what's up",
               "omg {name} hi!! how are u"),
    openers=("ok {name} catch me up, what's new",
             "sooo {name}, any updates?"),
    fillers=("ugh my phone's at 3% brb",
             "lol did u see that video of the raccoon stealing pizza",
             "i've been binging that dating show all week",
             "my wifi's been so bad today",
             "can't believe it's already friday",
             "just spilled coffee all over my keyboard smh"),
    reactions=("no wayyy", "wait fr??", "lmaooo ok good for u"),
    corrections=("wait no not {old}, {value}. typo lol",
                 "ugh autocorrect, it's {value} not {old}",
                 "{old}- sorry, {value}*, my brain is fried"),
    relative=(RelativeTime("2 wks ago", "days", 14),
              RelativeTime("5 days ago", "days", 5),
              RelativeTime("this past {month}", "months", 1)),
    as_of_month="in {month} of {year}",
    as_of_day="as of {month} {day}, {year}",
)  # fmt: skip
