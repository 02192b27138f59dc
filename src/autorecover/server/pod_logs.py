"""Job output read by the node agents: which containers each agent reads, and its excerpts.

`GET /api/v1/agent/logs/sources?node=NODE` names the containers of watched jobs' pods on the
caller's node and where the engine's copy of each ends; asking is also the agent's heartbeat:
the engine streams `pods/log` through the API only for pods on nodes whose agent has not asked
lately (`adapters/kubernetes/logs.py`). `POST /api/v1/agent/logs` takes the excerpts the agent
read there (`agent/logs/`). Both need the `agent` role and only for the caller's own node, as
the orders do; the excerpts go to the leader's spool (job recovery runs there), so a standby
answers 503 with Retry-After and the agent keeps them until the leader takes them. An engine
whose scheduler takes no pod logs (Slurm) answers 404.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Query, Request
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from autorecover.server.engine import Engine
from autorecover.server.guarding import caller_of
from autorecover.server.schemas import MAX_NAME, NODE_PATTERN, Name, Problem, _storable

API = "/api/v1"
FORMAT = "autorecover.podlogs/1"
MAX_PODS = 256  # excerpts in one post
MAX_TEXT = 512 << 10  # characters of one excerpt
_ANSWERS: dict[int | str, dict[str, Any]] = {
    403: {"model": Problem, "description": "An agent reads and ships its own node's pods."},
    404: {"model": Problem, "description": "This engine takes no pod logs (not Kubernetes)."},
    503: {"model": Problem, "description": "Not the leader: retry after Retry-After."},
}
Uid = Annotated[
    str,
    StringConstraints(pattern=r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"),
]
Container = Annotated[
    str, StringConstraints(min_length=1, max_length=63, pattern=r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT), AfterValidator(_storable)]


class SourceOut(BaseModel):
    """A container the agent should read, and where the engine's copy of it ends."""

    namespace: str
    pod: str
    uid: str
    container: str
    inode: int
    offset: int


class SourcesOut(BaseModel):
    """The containers of watched jobs on the node."""

    sources: list[SourceOut]


class ExcerptIn(BaseModel):
    """What the agent kept of one read of one container (agent/logs/excerpts.py)."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a default

    uid: Uid
    container: Container
    inode: int = Field(ge=0, le=2**64 - 1, description="the log file read")
    offset: int = Field(ge=0, le=2**63 - 1, description="where the read ended in it")
    lines: int = Field(ge=0, le=2**40, description="lines read")
    kept: int = Field(ge=0, le=2**40, description="lines kept")
    findings: int = Field(ge=0, le=2**40, description="lines a signature matched")
    dropped: int = Field(0, ge=0, le=2**40, description="lines past the excerpt's bounds")
    text: Text


class ExcerptsIn(BaseModel):
    """One post of an agent's excerpts."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not a default

    format: str = Field(pattern=f"^{FORMAT}$")
    node: Name
    sent_at: str = Field(max_length=64)
    pods: list[ExcerptIn] = Field(max_length=MAX_PODS)


class TakenOut(BaseModel):
    """How many excerpts the engine took, and how many it ignored (pods no longer watched)."""

    taken: int
    ignored: int


def add_pod_log_routes(app: FastAPI, engine: Engine) -> None:
    """The agent's pod-log routes, on `app`."""

    def ready(request: Request, node: str) -> Any:
        caller = caller_of(request.state)
        if caller is None or not caller.may_report(node):
            who = caller.name if caller else "an unidentified caller"
            raise HTTPException(403, f"{who} may not read or ship pod logs of {node}")
        if engine.pod_logs is None:
            raise HTTPException(404, "this engine's scheduler takes no pod logs from agents")
        if engine.leadership.fence() is None:
            retry = str(engine.settings.retry_after_s)
            raise HTTPException(
                503, "not the leader: pod logs go to the leader", headers={"Retry-After": retry}
            )
        return engine.pod_logs

    @app.get(f"{API}/agent/logs/sources", response_model=SourcesOut, responses=_ANSWERS)
    def sources(
        request: Request,
        node: str = Query(min_length=1, max_length=MAX_NAME, pattern=NODE_PATTERN),
    ) -> SourcesOut:
        """The containers of watched jobs on the caller's node (an agent polls this)."""
        sink = ready(request, node)
        found = sink.agent_sources(node)
        fields = ("namespace", "pod", "uid", "container", "inode", "offset")
        out = [SourceOut(**{k: getattr(s, k) for k in fields}) for s in found]
        return SourcesOut(sources=out)

    @app.post(f"{API}/agent/logs", response_model=TakenOut, responses=_ANSWERS)
    def excerpts(request: Request, body: ExcerptsIn) -> TakenOut:
        """Record what the caller's node's agent read of its pods' logs."""
        sink = ready(request, body.node)
        taken = size = 0
        for p in body.pods:
            text = p.text.encode("utf-8")
            if sink.agent_excerpt(body.node, p.uid, p.container, p.inode, p.offset, text):
                taken += 1
                size += len(text)
        engine.metrics.pod_log_excerpts(taken, len(body.pods) - taken, size)
        return TakenOut(taken=taken, ignored=len(body.pods) - taken)
