"""Enumerations of the ontology and the one time format every store uses.

Times are normalised to ``YYYY-MM-DDTHH:MM:SS`` in UTC (no offset suffix, second resolution),
so that plain string order is time order in SQL and in Cypher alike. A date means midnight
UTC, a naive datetime is taken to be UTC, an aware one is converted to UTC, and fractions of
a second are truncated.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Annotated, TypeAlias

from pydantic import BeforeValidator

TIME_FORMAT_DOC = "YYYY-MM-DDTHH:MM:SS (UTC)"
SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")

TimeLike: TypeAlias = str | date | datetime


class EntityType(StrEnum):
    """The 35 entity types, aligned to YAGO's top-level classes (see ``description``)."""

    PERSON = "Person"
    ORGANIZATION = "Organization"
    CORPORATION = "Corporation"
    GROUP = "Group"
    ANIMAL = "Animal"
    PLANT = "Plant"
    TAXONOMY = "Taxonomy"
    PLACE = "Place"
    BUILDING = "Building"
    EVENT = "Event"
    TIME = "Time"
    ACTIVITY = "Activity"
    PRODUCT = "Product"
    DEVICE = "Device"
    VEHICLE = "Vehicle"
    SOFTWARE = "Software"
    DATASET = "Dataset"
    SERVICE = "Service"
    CREATIVE_WORK = "CreativeWork"
    DOCUMENT = "Document"
    MESSAGE = "Message"
    STOCK = "Stock"
    CONTRACT = "Contract"
    FOOD = "Food"
    MEDICATION = "Medication"
    DISEASE = "Disease"
    SUBSTANCE = "Substance"
    TOPIC = "Topic"
    METRIC = "Metric"
    TASK = "Task"
    PROJECT = "Project"
    OCCUPATION = "Occupation"
    LANGUAGE = "Language"
    AWARD = "Award"
    CONCEPT = "Concept"

    @property
    def description(self) -> str:
        return ENTITY_TYPE_DESCRIPTIONS[self]


ENTITY_TYPE_DESCRIPTIONS: dict[EntityType, str] = {
    EntityType.PERSON: "A human being, real or fictional (yago:Person, schema:Person).",
    EntityType.ORGANIZATION: "A non-commercial organisation: school, club, NGO, government body.",
    EntityType.CORPORATION: "A company or business that sells goods or services.",
    EntityType.GROUP: "An informal group of people: a family, a band, a circle of friends.",
    EntityType.ANIMAL: "An individual animal or pet (e.g. a named dog).",
    EntityType.PLANT: "An individual plant or a garden crop.",
    EntityType.TAXONOMY: "A biological taxon: species, genus, breed (yago:Taxon).",
    EntityType.PLACE: "A geographic location: country, city, address, park (schema:Place).",
    EntityType.BUILDING: "A built structure or venue: house, office, museum, stadium.",
    EntityType.EVENT: "A named happening: a wedding, a conference, a marathon (schema:Event).",
    EntityType.TIME: "A named period or date: a holiday, a season, a year.",
    EntityType.ACTIVITY: "A recurring activity or hobby: painting, running, volunteering.",
    EntityType.PRODUCT: "A manufactured or sold good not covered by a finer type.",
    EntityType.DEVICE: "A physical device or gadget: phone, camera, laptop.",
    EntityType.VEHICLE: "A means of transport: car, bicycle, boat.",
    EntityType.SOFTWARE: "A program, app, library or game.",
    EntityType.DATASET: "A collection of data: a dataset, a spreadsheet, a corpus.",
    EntityType.SERVICE: "An offered service: a subscription, a hospital, a bank account service.",
    EntityType.CREATIVE_WORK: "A book, film, song, painting or other work of art (schema).",
    EntityType.DOCUMENT: "A written record: a report, a letter, a certificate, a form.",
    EntityType.MESSAGE: "A communication: an email, a text message, a post.",
    EntityType.STOCK: "A tradable financial instrument: a share, a fund, a coin.",
    EntityType.CONTRACT: "An agreement: a lease, an employment contract, an insurance policy.",
    EntityType.FOOD: "A dish, drink or ingredient.",
    EntityType.MEDICATION: "A drug or medical treatment.",
    EntityType.DISEASE: "An illness, condition or injury.",
    EntityType.SUBSTANCE: "A chemical substance or material (yago:Substance).",
    EntityType.TOPIC: "A subject of interest or discussion: climate change, LGBTQ rights.",
    EntityType.METRIC: "A measured quantity: weight, salary, score, running pace.",
    EntityType.TASK: "A to-do, goal or assignment.",
    EntityType.PROJECT: "A planned undertaking with a goal: a startup, a thesis, a renovation.",
    EntityType.OCCUPATION: "A job, profession or role: nurse, counsellor, software engineer.",
    EntityType.LANGUAGE: "A natural or programming language.",
    EntityType.AWARD: "A prize, honour, degree or certification.",
    EntityType.CONCEPT: "Any other abstract thing (yago:Intangible); the fallback type.",
}


class Role(StrEnum):
    """The part an entity plays in a turn or an event."""

    SPEAKER = "Speaker"
    LISTENER = "Listener"
    AGENT = "Agent"
    MENTIONED = "Mentioned"


class DType(StrEnum):
    """The value type of a property or a fact."""

    STR = "str"
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    DATE = "date"
    DATETIME = "datetime"
    ENUM = "enum"
    URL = "url"
    LIST = "list"


def normalize_time(value: object) -> str:
    """Return ``value`` (str, date or datetime) as ``YYYY-MM-DDTHH:MM:SS`` in UTC.

    Raises ``ValueError`` naming the value when it is not an ISO 8601 date or datetime.
    """
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"{value!r} is not an ISO 8601 date or datetime") from None
    else:
        raise ValueError(f"{value!r} is not a time (expected an ISO 8601 str, date or datetime)")
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.replace(microsecond=0).isoformat(timespec="seconds")


def parse_time(value: str) -> datetime:
    """Parse a normalised time string back into a naive UTC datetime."""
    return datetime.fromisoformat(value)


def check_snake_case(name: str) -> str:
    """Return ``name`` if it is snake_case, else raise ``ValueError`` naming it."""
    if not SNAKE_CASE.match(name):
        raise ValueError(f"{name!r} is not snake_case (lowercase words joined by '_')")
    return name


IsoTime = Annotated[str, BeforeValidator(normalize_time)]
"""A time field: accepts str/date/datetime, stores the normalised UTC string."""
