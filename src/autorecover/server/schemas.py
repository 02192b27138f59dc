"""The HTTP API's documents as pydantic models: the one place pydantic is used (the boundary).

`BatchIn` / `SignalIn` describe the agent's wire format `autorecover.signals/1` for the
OpenAPI document and name the bad field on a 422; the signals themselves are then read with
the wire format's own parser (`adapters.http.wire.signal_from_dict`), so there is one reader.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
)

from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import Probe

# The intake's bounds (docs/engine.md, "Signal intake"): each is in the OpenAPI document.
MAX_SIGNALS = 1000  # per batch: the agent sends at most 500
MAX_COUNT = 2**31 - 1  # folded observations: PostgreSQL's INTEGER, far above any storm
MAX_DROPPED = 2**31 - 1
MAX_TEXT = 4096  # evidence text per signal (the agent keeps 2000)
MAX_DETAILS = 32
MAX_DETAIL_KEY = 64
MAX_DETAIL_VALUE = 1024
MAX_NAME = 253  # a DNS name: Kubernetes node names, Slurm host names
MAX_KEY = 200  # signal keys, components, incident ids
# The Unix epoch: where a node whose real-time clock lost its setting starts counting (its
# times are moved onto the engine's clock by the intake: `intake.clock_offset`).
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
MAX_AHEAD = timedelta(minutes=5)  # `at` may lead the engine's clock by this much (skew)
NODE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
KEY_PATTERN = r"^[\x21-\x7e]+$"  # printable ASCII, no spaces: catalog keys
LABEL_PATTERN = r"^[^\x00-\x1f\x7f]+$"  # no control characters: components, incident ids


def _storable(text: str) -> str:
    """Refuse what no store keeps: NUL (PostgreSQL's TEXT) and lone surrogates (not UTF-8)."""
    if "\x00" in text:
        raise ValueError("must not contain NUL characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode (no lone surrogates)") from None
    return text


def _iso_text(value: object) -> object:
    """Times are ISO 8601 text with a UTC offset, never bare numbers (`"at": 0`)."""
    if not isinstance(value, (str, datetime)):
        raise ValueError("must be an ISO 8601 time with a UTC offset, as text")
    return value


def _since_epoch(at: datetime) -> datetime:
    try:
        utc = at.astimezone(UTC)
    except OverflowError:
        raise ValueError("is out of range") from None
    if utc < EARLIEST:
        raise ValueError(f"is before {EARLIEST:%Y-%m-%d}")
    return at


Name = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME, pattern=NODE_PATTERN)]
Key = Annotated[str, StringConstraints(min_length=1, max_length=MAX_KEY, pattern=KEY_PATTERN)]
Label = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_KEY, pattern=LABEL_PATTERN),
    AfterValidator(_storable),
]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT), AfterValidator(_storable)]
DetailKey = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_DETAIL_KEY), AfterValidator(_storable)
]
DetailValue = Annotated[
    str, StringConstraints(max_length=MAX_DETAIL_VALUE), AfterValidator(_storable)
]
When = Annotated[AwareDatetime, BeforeValidator(_iso_text), AfterValidator(_since_epoch)]
_AT = (
    "When it was observed, on the node's clock: ISO 8601 with a UTC offset, not before "
    "1970-01-01; moved onto the engine's clock by the batch's sent_at, at most "
    f"{int(MAX_AHEAD.total_seconds())} s ahead of the engine's clock."
)


class SignalIn(BaseModel):
    """One signal as the agent sends it."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a default

    node: Name
    probe: Probe
    signal: Key
    blame: Blame
    weight: int = Field(ge=0, le=100)
    node_action: NodeAction
    at: When = Field(description=_AT)
    count: int = Field(default=1, ge=1, le=MAX_COUNT)
    component: Label | None = None
    text: Text = ""
    details: list[tuple[DetailKey, DetailValue]] = Field(
        default_factory=list, max_length=MAX_DETAILS
    )
    incident: Label | None = None

    @field_validator("probe")
    @classmethod
    def _not_the_engines(cls, probe: Probe) -> Probe:
        # The engine's own findings (a silent node) are raised by the engine alone: an agent
        # that could send them could ask for its node's power cycle in the engine's name.
        if probe is Probe.ENGINE:
            raise ValueError("probe 'engine' is the engine's own: agents may not send it")
        return probe


class BatchIn(BaseModel):
    """One POST from a node agent."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a default

    format: Literal["autorecover.signals/1"] = "autorecover.signals/1"  # == BATCH_FORMAT
    node: Name
    agent: Annotated[str, StringConstraints(max_length=100, pattern=r"^[\x20-\x7e]*$")] = ""
    sent_at: When | None = None
    dropped: int = Field(default=0, ge=0, le=MAX_DROPPED)
    signals: list[SignalIn] = Field(default_factory=list, max_length=MAX_SIGNALS)


class Accepted(BaseModel):
    """The intake kept the batch: it will be recorded even if this engine dies now."""

    batch: int
    signals: int
    waiting: int | None  # batches waiting (None when it could not be counted after keeping it)


class SignalOut(BaseModel):
    """A recorded signal."""

    probe: str
    signal: str
    blame: str
    weight: int
    node_action: str
    at: datetime
    count: int
    component: str | None
    text: str
    incident: str | None


class NodeOut(BaseModel):
    """A node as hardware recovery holds it."""

    name: str
    state: str
    since: datetime
    reason: str
    incident: str | None
    evidence: list[str]
    last_seen: datetime | None
    held: str | None
    step: str | None


class TransitionOut(BaseModel):
    """One recorded move of a node."""

    node: str
    seq: int
    from_state: str
    to_state: str
    at: datetime
    by: str
    why: str
    evidence: list[str]
    incident: str | None


class ActionOut(BaseModel):
    """One recorded action and how it ended."""

    id: str
    node: str
    kind: str
    status: str
    at: datetime
    updated_at: datetime
    by: str
    why: str
    target: str | None
    incident: str | None
    result: str
    evidence: list[str]


class EventOut(BaseModel):
    """A note on the record that is not a transition."""

    node: str
    at: datetime
    by: str
    text: str


class NodeDetail(NodeOut):
    """A node with its history."""

    transitions: list[TransitionOut]
    actions: list[ActionOut]
    events: list[EventOut]
    signals: list[SignalOut]
    audit: list[RequestOut] = Field(default_factory=list)  # people's requests about it
    maintenance: RequestOut | None = None  # the request holding it (or its domain) in maintenance


class IncidentOut(BaseModel):
    """An incident, from hardware recovery (node or failure domain) or job recovery."""

    id: str
    source: Literal["hardware", "jobs"]
    kind: str
    cause: str
    state: Literal["open", "closed"]
    opened_at: datetime
    updated_at: datetime
    nodes: list[str]
    summary: str


class TimelineEntry(BaseModel):
    """One moment of an incident."""

    at: datetime
    what: str  # transition, action, event, stage, ...
    node: str
    text: str


class IncidentDetail(IncidentOut):
    """An incident with its evidence and timeline."""

    evidence: list[str]
    timeline: list[TimelineEntry]
    audit: list[RequestOut] = Field(default_factory=list)  # acknowledgements, releases, ...


class DeadLetterOut(BaseModel):
    """An agent batch a pass could not record, set aside with its error."""

    id: int
    batch: int
    node: str
    agent: str
    received_at: datetime
    failed_at: datetime
    error: str
    body: str  # the batch's signals as kept (wire-format JSON)


class RetryIn(BaseModel):
    """An operator's request to try a dead letter again."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a default

    why: Annotated[str, StringConstraints(min_length=1, max_length=1000), AfterValidator(_storable)]


class Retried(BaseModel):
    """The dead letter is back in the inbox as this batch."""

    batch: int


class Health(BaseModel):
    """Liveness and readiness: this replica's role and who leads."""

    status: Literal["ok", "unavailable"]
    role: Literal["leader", "standby"]
    replica: str
    leader: str | None
    detail: str = ""
    acting: Literal["active", "paused"] = "active"  # a person may pause all acting


class Problem(BaseModel):
    """An error."""

    detail: Any


# --- operator controls -------------------------------------------------------------------------

REQUEST_ID = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$"
NO_NUL = r"^[^\x00]*$"  # text a database keeps as text (PostgreSQL refuses NUL)


class ControlIn(BaseModel):
    """What every operator control takes: why (recorded in the audit), and a request id that
    makes a retry of the same call the same request."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a default

    why: str = Field(min_length=1, max_length=1000, pattern=NO_NUL)
    request_id: str | None = Field(default=None, pattern=REQUEST_ID)


class ReleaseIn(ControlIn):
    """Release a node: back to service at once, or (from needs_attention) validated first."""

    validate_first: bool = False


class RequestOut(BaseModel):
    """An operator request and how it ended: the audit record."""

    id: str
    kind: str
    target: str
    by: str
    why: str
    source: str
    at: datetime
    options: dict[str, str]
    status: Literal["pending", "done", "refused"]
    done_at: datetime | None
    result: str


class BreakerOut(BaseModel):
    """One circuit breaker: tripped since when and why, and who reset it last."""

    tripped: bool
    tripped_at: datetime | None
    reason: str
    reset_by: str
    reset_at: datetime | None
    reset_why: str


class BreakersOut(BaseModel):
    """The live breaker, and the would-have breaker a dry-run counts against."""

    mode: Literal["live", "dry_run"]
    live: BreakerOut
    dry_run: BreakerOut


class ActingOut(BaseModel):
    """Whether the engine acts, and who paused it."""

    paused: bool
    request: RequestOut | None
    maintenance: list[RequestOut]


NodeDetail.model_rebuild()  # they name `RequestOut`, defined after them
IncidentDetail.model_rebuild()
