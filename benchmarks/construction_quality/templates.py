"""The template families A and B: how people state, change, deny and correct a concept's
value, and how questions ask about it. Family A builds the tuning set and family B the test set;
they share the concepts' canonical property names (and four of five concepts) but no
phrasing, no value and no name, so a construction tuned on A meets B's words for the first
time. Every template renders to a short line (well under 200 characters). Family C, the
holdout set's, is in ``templates_c`` (written without reading B) and family D, the holdout2
set's, in ``templates_d`` (written without reading B or C); family E, the holdout3 set's, is in
``templates_e``, family F, the holdout4 set's, in ``templates_f``, family G, the holdout5
set's, in ``templates_g`` and family H, the holdout6 set's, in ``templates_h``;
``generator.FAMILIES`` holds all eight.

Placeholders: {value} the new value, {old} the earlier one, {when}/{When} a relative time,
{name}/{rel} a third party and the relation, {p} the person a question is about, {date} an
as-of time ("in March 2024").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PROPERTIES: dict[str, str] = {
    "lives_in": "lives_in",
    "employer": "employer",
    "favourite_restaurant": "favourite_restaurant",
    "car": "car",
    "hobby": "hobby",
    "occupation": "occupation",
}
"""Concept -> the canonical property name memory should store it under (the lexicon's)."""


@dataclass(frozen=True)
class Wording:
    """One concept's phrasings in one family, and its four question forms."""

    state: tuple[str, ...]
    change: tuple[str, ...]
    change_dated: tuple[str, ...]
    negate_dated: tuple[str, ...]
    after_negation: tuple[str, ...]
    stable_other: tuple[str, ...]
    third_party: tuple[str, ...]
    now: str
    as_of: str
    when: str
    before: str

    def templates(self) -> list[str]:
        return [
            *self.state, *self.change, *self.change_dated, *self.negate_dated,
            *self.after_negation, *self.stable_other, *self.third_party,
            self.now, self.as_of, self.when, self.before,
        ]  # fmt: skip


@dataclass(frozen=True)
class RelativeTime:
    """A relative time expression: ``amount`` days or calendar months before the turn
    ({month} in ``words`` is that month's name)."""

    words: str
    unit: Literal["days", "months"]
    amount: int


@dataclass(frozen=True)
class Family:
    """A template family: names, values, concept wordings, small talk and date phrasing."""

    name: str
    subjects: tuple[str, ...]
    others: tuple[str, ...]
    third_parties: tuple[tuple[str, str], ...]
    """(name, relation) of the people a subject mentions."""
    values: dict[str, tuple[str, ...]]
    wordings: dict[str, Wording]
    greetings: tuple[str, ...]
    openers: tuple[str, ...]
    fillers: tuple[str, ...]
    reactions: tuple[str, ...]
    corrections: tuple[str, ...]
    relative: tuple[RelativeTime, ...]
    as_of_month: str
    as_of_day: str

    def templates(self) -> list[str]:
        """Every phrasing of the family (for checking that families share none)."""
        out = [*self.greetings, *self.openers, *self.fillers, *self.reactions]
        out += [*self.corrections, *(r.words for r in self.relative)]
        out += [self.as_of_month, self.as_of_day]
        for wording in self.wordings.values():
            out += wording.templates()
        return out


FAMILY_A = Family(
    name="A",
    subjects=("Alice", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Gemma", "Hugo"),
    others=("Sam", "Priya", "Tom", "Kenji", "Zoe", "Ben"),
    third_parties=(("Maya", "sister"), ("Leo", "brother"), ("Rosa", "cousin"),
                   ("Ivan", "neighbour"), ("Nina", "sister"), ("Omar", "brother")),
    values={
        "lives_in": ("Boston", "Denver", "Seattle", "Austin", "Portland", "Chicago", "Phoenix",
                     "Raleigh", "Tucson", "Omaha", "Boise", "Tulsa"),
        "employer": ("Acme Corp", "Globex", "Initech", "Umbrella Labs", "Hooli",
                     "Vandelay Industries", "Cyberdyne", "Soylent Foods", "Dunder Mifflin",
                     "Pendant Publishing"),
        "favourite_restaurant": ("Italian Garden", "Sakura Sushi", "Blue Lotus", "Taco Haven",
                                 "Le Petit Bistro", "Golden Dragon", "Casa Miguel",
                                 "Green Fork", "Bombay Spice", "Pho Saigon"),
        "car": ("Toyota Corolla", "Honda Civic", "Ford Mustang", "Tesla Model 3",
                "Subaru Outback", "Mazda CX-5", "Volvo XC60", "Kia Soul", "Jeep Wrangler"),
        "hobby": ("rock climbing", "pottery", "chess", "salsa dancing", "birdwatching",
                  "woodworking", "surfing", "knitting", "archery"),
    },
    wordings={
        "lives_in": Wording(
            state=("I live in {value}, in a small flat near the river.",
                   "Home for me is {value}; I rent a place downtown."),
            change=("I don't live in {old} anymore, {value} is home now.",
                    "Big change: I packed up everything in {old} and settled in {value}."),
            change_dated=("{When} I moved to {value}, so {old} is behind me.",
                          "I relocated from {old} to {value} {when}."),
            negate_dated=("I don't live in {old} anymore; I handed back the keys {when}.",
                          "I moved out of {old} {when} and I'm staying with friends for now."),
            after_negation=("I've finally found a place: {value} is where I live now.",
                            "Good news, I signed a lease in {value}, so that's home now."),
            stable_other=("I've lived in {value} my whole life, I could never leave.",
                          "I'm still in {value}, same flat as always."),
            third_party=("My {rel} {name} just moved to {value}.",
                         "My {rel} {name} has a new place in {value} now."),
            now="Where does {p} live now?",
            as_of="Where did {p} live {date}?",
            when="When did {p} move to {value}?",
            before="Where did {p} live before {value}?",
        ),
        "employer": Wording(
            state=("I work at {value}, mostly on their billing systems.",
                   "I'm an engineer at {value}, the commute is short."),
            change=("I quit {old} and took a job at {value}.",
                    "I'm with {value} now, I left {old} for good."),
            change_dated=("{When} I started at {value}; leaving {old} was the right call.",
                          "I joined {value} {when} after handing in my notice at {old}."),
            negate_dated=("I'm not working at {old} anymore, I left {when}.",
                          "I walked out of {old} {when} and haven't looked back."),
            after_negation=("Good news, I got hired: I work at {value} now.",
                            "I signed a contract with {value}, so I'm employed again."),
            stable_other=("I've been at {value} forever, they treat me well.",
                          "Still working at {value}, same desk as always."),
            third_party=("My {rel} {name} just got a job at {value}.",
                         "My {rel} {name} works at {value} now."),
            now="Where does {p} work now?",
            as_of="Where did {p} work {date}?",
            when="When did {p} start working at {value}?",
            before="Where did {p} work before {value}?",
        ),
        "favourite_restaurant": Wording(
            state=("My favourite restaurant is {value}, I go there every Friday.",
                   "Nothing beats {value}, it's my favourite place to eat."),
            change=("{value} is my favourite restaurant now.",
                    "We always end up at {value} lately, it's my new favourite.",
                    "I've gone off {old}; {value} is the place I love now."),
            change_dated=(
                "{When} I discovered {value}, and it's my favourite restaurant now, even over "
                "{old}.",
                "I've loved {value} more than {old} ever since I first ate there {when}.",
            ),
            negate_dated=("{old} isn't my favourite anymore, the food went downhill {when}.",
                          "I stopped going to {old} {when}, it's not my favourite now."),
            after_negation=("I have a new favourite restaurant at last: {value}.",
                            "My favourite place to eat now is {value}."),
            stable_other=("My favourite restaurant has always been {value}.",
                          "I'm loyal to {value}, my favourite for years."),
            third_party=("My {rel} {name} raves about {value}, it's {name}'s favourite "
                         "restaurant now.",
                         "My {rel} {name} says {value} is the best restaurant in town."),
            now="What is {p}'s favourite restaurant now?",
            as_of="What was {p}'s favourite restaurant {date}?",
            when="When did {value} become {p}'s favourite restaurant?",
            before="What was {p}'s favourite restaurant before {value}?",
        ),
        "car": Wording(
            state=("I drive a {value}, it still runs fine.", "My car is a {value}, nothing fancy."),
            change=("I sold the {old} and bought a {value}.",
                    "I'm driving a {value} now, the {old} is gone."),
            change_dated=("{When} I traded in the {old} for a {value}.",
                          "I bought a {value} {when} and sold the {old}."),
            negate_dated=("I don't have the {old} anymore, I sold it {when}.",
                          "The {old} is gone, I scrapped it {when}."),
            after_negation=("I finally bought a car again, a {value}.",
                            "I'm back behind the wheel: I drive a {value} now."),
            stable_other=("I've driven the same {value} for ten years.",
                          "My old {value} is still going strong."),
            third_party=("My {rel} {name} just bought a {value}.",
                         "My {rel} {name} drives a {value} now."),
            now="What car does {p} drive now?",
            as_of="What car did {p} drive {date}?",
            when="When did {p} get the {value}?",
            before="What car did {p} drive before the {value}?",
        ),
        "hobby": Wording(
            state=("My big hobby is {value}, I do it every weekend.",
                   "In my free time I do {value}, I love it."),
            change=("I gave up {old}; {value} is my hobby now.",
                    "These days I spend my free time on {value} instead of {old}."),
            change_dated=("{When} I took up {value} and dropped {old}.",
                          "I switched from {old} to {value} {when}."),
            negate_dated=("I stopped doing {old} {when}, it got boring.",
                          "I quit {old} {when}, I was tired of it."),
            after_negation=("I've found a new hobby: {value}.",
                            "My hobby now is {value}, I'm hooked."),
            stable_other=("My hobby since school has been {value}.",
                          "I still do {value} every chance I get."),
            third_party=("My {rel} {name} has taken up {value}.",
                         "My {rel} {name} is obsessed with {value} these days."),
            now="What is {p}'s hobby now?",
            as_of="What was {p}'s hobby {date}?",
            when="When did {p} take up {value}?",
            before="What was {p}'s hobby before {value}?",
        ),
    },
    greetings=("Hey {name}, good to see you! How have you been?",
               "Hi {name}! It's been ages, how's life?"),
    openers=("Hey again {name}, what's new since last time?",
             "Good to catch up again, {name}. Any news?"),
    fillers=("The weather has been miserable all week.",
             "Did you catch the football match on Sunday?",
             "I've been reading a great novel about lighthouse keepers.",
             "My phone screen cracked again, typical.",
             "We should grab coffee sometime soon."),
    reactions=("Oh nice!", "Wow, that's a big change.", "Good for you, honestly."),
    corrections=("Sorry, I misspoke: it's {value}, not {old}.",
                 "Actually it's {value}, not {old}, I keep mixing them up."),
    relative=(RelativeTime("yesterday", "days", 1), RelativeTime("three days ago", "days", 3),
              RelativeTime("last month", "months", 1)),
    as_of_month="in {month} {year}",
    as_of_day="on {day} {month} {year}",
)  # fmt: skip


FAMILY_B = Family(
    name="B",
    subjects=("Grace", "Hiro", "Ines", "Jonas", "Kofi", "Lena", "Mateo", "Nadia"),
    others=("Marta", "Noah", "Olga", "Pavel", "Quinn", "Rhea"),
    third_parties=(("Ruth", "aunt"), ("Tariq", "uncle"), ("Yara", "roommate"),
                   ("Oscar", "best friend"), ("Vera", "aunt"), ("Sven", "uncle")),
    values={
        "lives_in": ("Nashville", "Atlanta", "Baltimore", "Sacramento", "Pittsburgh",
                     "Milwaukee", "Albuquerque", "Spokane", "Richmond", "Memphis", "Fresno",
                     "Tacoma"),
        "employer": ("Wayne Enterprises", "Oscorp", "Massive Dynamic", "Tyrell Systems",
                     "Aperture Science", "Pied Piper", "Gringotts Bank", "Monarch Solutions",
                     "Wernham Hogg", "Prestige Worldwide"),
        "favourite_restaurant": ("Olive Terrace", "Ramen Kaze", "Saffron House", "El Farolito",
                                 "Brass Kettle", "Jade Palace", "Mezze Corner",
                                 "Smokestack BBQ", "Nonna Lucia", "Lotus Leaf"),
        "car": ("Hyundai Elantra", "Chevrolet Bolt", "BMW X3", "Mini Cooper", "Volkswagen Golf",
                "Peugeot 208", "Skoda Octavia", "Fiat Panda", "Lexus RX", "Nissan Altima"),
        "occupation": ("nurse", "teacher", "pharmacist", "chef", "librarian", "photographer",
                       "carpenter", "dentist", "paramedic", "translator", "surveyor"),
    },
    wordings={
        "lives_in": Wording(
            state=("These days I'm based in {value}, my apartment overlooks the park.",
                   "I call {value} home, been renting there a while."),
            change=("Said goodbye to {old}; my new address is in {value}.",
                    "{value} is where I'm living now, {old} got too expensive."),
            change_dated=("I left {old} for {value} {when}.",
                          "{When} I relocated to {value}, {old} is history."),
            negate_dated=("{old} isn't home anymore, I moved out {when}.",
                          "I gave up my apartment in {old} {when}; I'm couch-surfing for now."),
            after_negation=("Settled at last: I'm living in {value} now.",
                            "I found an apartment in {value} and moved in."),
            stable_other=("I was born in {value} and I still live there.",
                          "I'm a {value} local and staying put."),
            third_party=("{name}, my {rel}, relocated to {value}.",
                         "{name}, my {rel}, now lives in {value}."),
            now="Which city is {p} living in these days?",
            as_of="Which city was {p} living in {date}?",
            when="When did {p} relocate to {value}?",
            before="Which city did {p} live in prior to {value}?",
        ),
        "employer": Wording(
            state=("I'm employed by {value}, in their logistics team.",
                   "I'm on the payroll at {value}, running their warehouse."),
            change=("New chapter: I resigned from {old} and signed with {value}.",
                    "{value} hired me, so I'm done with {old}."),
            change_dated=("My first day at {value} was {when}; {old} is in the past.",
                          "{When} I swapped {old} for a role at {value}."),
            negate_dated=("I left {old} {when} and I'm between jobs.",
                          "My contract at {old} ended {when}."),
            after_negation=("Job hunt over: {value} took me on.",
                            "I'm on the team at {value} now, the offer came through."),
            stable_other=("I've spent my entire career at {value}.",
                          "I'm still employed by {value}, no plans to move."),
            third_party=("{name}, my {rel}, got hired by {value}.",
                         "{name}, my {rel}, is on the staff at {value} now."),
            now="Who is {p}'s employer at the moment?",
            as_of="Who employed {p} {date}?",
            when="When did {p} join {value}?",
            before="Who did {p} work for prior to {value}?",
        ),
        "favourite_restaurant": Wording(
            state=("If I eat out, it's {value}; easily my favourite spot.",
                   "My top restaurant is {value}, hands down."),
            change=("These days {value} beats everywhere else for me, even {old}.",
                    "{value} has become my go-to restaurant.",
                    "Forget {old}, my number one place to eat is {value} now."),
            change_dated=("I tried {value} {when} and now it's my top restaurant, sorry {old}.",
                          "{When} {value} replaced {old} as my favourite place for dinner."),
            negate_dated=("I'm done with {old}, I had a terrible meal there {when}.",
                          "{old} lost its spot as my favourite {when}, the new chef ruined it."),
            after_negation=("My new top pick for dinner is {value}.",
                            "I've settled on a new favourite: {value}."),
            stable_other=("For me nothing will ever top {value}.",
                          "{value} has been my top restaurant for ages."),
            third_party=("{name}, my {rel}, can't stop eating at {value}, it's {name}'s "
                         "favourite.",
                         "{name}, my {rel}, swears {value} is the finest place to eat."),
            now="Which restaurant does {p} like best these days?",
            as_of="Which restaurant did {p} like best {date}?",
            when="Since when has {value} been {p}'s favourite restaurant?",
            before="Which restaurant did {p} like best prior to {value}?",
        ),
        "car": Wording(
            state=("I get around in a {value}.", "A {value} is what I drive to work."),
            change=("Out with the {old}, in with a {value}.",
                    "The {old} is sold; a {value} sits in my driveway now."),
            change_dated=("I picked up a {value} {when} and let the {old} go.",
                          "{When} I exchanged the {old} for a {value}."),
            negate_dated=("I got rid of the {old} {when}; no car for now.",
                          "The {old} broke down for good {when}, so I'm car-less."),
            after_negation=("I'm back on four wheels with a {value}.", "New wheels: a {value}."),
            stable_other=("My {value} has never let me down.",
                          "I'll drive my {value} until it falls apart."),
            third_party=("{name}, my {rel}, now drives a {value}.",
                         "{name}, my {rel}, splurged on a {value}."),
            now="Which car is {p} driving these days?",
            as_of="Which car was {p} driving {date}?",
            when="When did {p} buy the {value}?",
            before="Which car did {p} have prior to the {value}?",
        ),
        "occupation": Wording(
            state=("I'm a {value} at the moment.", "I earn my living as a {value}."),
            change=("I retrained, so I'm a {value} now instead of a {old}.",
                    "No longer a {old}; I work as a {value} these days."),
            change_dated=("I qualified as a {value} {when}, so the {old} days are over.",
                          "{When} I stopped being a {old} and became a {value}."),
            negate_dated=("I stopped working as a {old} {when}.",
                          "I'm not a {old} anymore, I resigned {when}."),
            after_negation=("I've started a new career as a {value}.",
                            "I'm a {value} now, the new career suits me."),
            stable_other=("I've been a {value} for twenty years.",
                          "Being a {value} is all I've ever done."),
            third_party=("{name}, my {rel}, now works as a {value}.",
                         "{name}, my {rel}, became a {value}."),
            now="What does {p} do for a living now?",
            as_of="What did {p} do for a living {date}?",
            when="When did {p} become a {value}?",
            before="What did {p} do for a living prior to becoming a {value}?",
        ),
    },
    greetings=("Hi {name}! Long time no see, what's new?",
               "{name}! So glad we finally caught up."),
    openers=("Back again, {name}! Anything exciting happened?",
             "{name}, tell me everything since we last talked."),
    fillers=("It snowed all morning here, can you believe it?",
             "I binge-watched a documentary series about octopuses.",
             "My houseplants are finally thriving.",
             "Honestly I need a holiday.",
             "The printer jammed three times today, what a mess."),
    reactions=("No way, really?", "That sounds great.", "Huh, I didn't expect that."),
    corrections=("Wait, I got that wrong: I meant {value}, not {old}.",
                 "Let me correct myself: {value}, not {old}."),
    relative=(RelativeTime("the day before yesterday", "days", 2),
              RelativeTime("four days ago", "days", 4),
              RelativeTime("in {month}", "months", 1)),
    as_of_month="during {month} {year}",
    as_of_day="on {month} {day}, {year}",
)  # fmt: skip

FAMILIES: dict[str, Family] = {"A": FAMILY_A, "B": FAMILY_B}
"""A and B by name; ``generator.FAMILIES`` adds C (``templates_c``, which imports this module)."""
