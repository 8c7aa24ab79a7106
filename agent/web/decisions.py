"""The guided review forms turned into review decisions, and a checked text's claims review into its
claim edits.

A form yields the same decision object `claimscope sessions resume -d` and the MCP `answer` tool
take ('accept', or an edit whose fields depend on the review point); validation is the engine's
(`RunManager.answer` -> agent/graph/review.py's parse_decision), so a bad edit is refused with the
same message everywhere. A form may also carry the decision as JSON text, exactly as `-d` does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.datastructures import FormData

from claimscope.agent.graph.review import decision_from_text
from claimscope.tools.errors import InputError


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


def _text(form: FormData | Mapping[str, Any], name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _all(form: FormData | Mapping[str, Any], name: str) -> list[str]:
    if isinstance(form, FormData):
        return [v.strip() for v in form.getlist(name) if isinstance(v, str) and v.strip()]
    value = form.get(name)
    items = value if isinstance(value, list) else [value]
    return [str(v).strip() for v in items if v and str(v).strip()]


# What a decision typed as JSON looks like, per review point (shown with its form and its errors).
EXAMPLES = {
    "claim": '{"anti_claim": "Vitamin D does not prevent colds", "extra_queries": ["vitamin D colds trial"]}',
    "sources": '{"exclude": ["12"], "add": ["10.1000/xyz123"]}',
    "hierarchy": '{"edits": [{"op": "rename", "node_id": "1", "name": "dosage"}]}',
    "verdict": '{"accept": false, "note": "only two small trials"}',
}


def decision_from_form(point: str, form: FormData | Mapping[str, Any], pending: dict[str, Any]) -> Any:
    """The decision a submitted review form stands for ('accept' when nothing was changed). A field
    the person emptied means "none" (no anti-claim, no sub-claims), not "unchanged"."""
    if _text(form, "action") == "accept":
        return "accept"
    raw = _text(form, "decision_json")
    if raw:
        try:
            return decision_from_text(raw)
        except InputError as exc:
            example = EXAMPLES.get(point, "{}")
            raise InputError(f"the decision is 'accept' or a JSON object, e.g. {example}; got {raw!r}.") from exc
    summary = pending.get("summary") or {}
    decision: dict[str, Any] = {}
    if point == "claim":
        anti = _text(form, "anti_claim")
        if "anti_claim" in form and anti != (summary.get("anti_claim") or ""):
            decision["anti_claim"] = anti
        subs = _lines(_text(form, "sub_claims"))
        if "sub_claims" in form and subs != list(summary.get("sub_claims") or []):
            decision["sub_claims"] = subs
        queries = _lines(_text(form, "extra_queries"))
        if queries:
            decision["extra_queries"] = queries
        kind = _text(form, "claim_kind")
        if kind:
            decision["claim_kind"] = kind
    elif point == "sources":
        exclude = _all(form, "exclude")
        add = _lines(_text(form, "add"))
        if exclude:
            decision["exclude"] = exclude
        if add:
            decision["add"] = add
    elif point == "hierarchy":
        decision = _hierarchy_edits(form, summary)
    elif point == "verdict":
        dispute = _text(form, "verdict") == "dispute"
        note = _text(form, "note")
        if dispute or note:
            decision = {"accept": not dispute, "note": note}
    else:
        raise InputError(f"unknown review point {point!r}; reload the session page.")
    return decision or "accept"


def _hierarchy_edits(form: FormData | Mapping[str, Any], summary: dict[str, Any]) -> dict[str, Any]:
    edits: list[dict[str, Any]] = []
    for node in summary.get("nodes") or []:
        nid = str(node.get("id"))
        if _text(form, f"delete-{nid}"):
            edits.append({"op": "delete", "node_id": nid})
            continue
        into = _text(form, f"merge-{nid}")
        if into:
            edits.append({"op": "merge", "node_id": nid, "into": into})
            continue
        name = " ".join(_text(form, f"name-{nid}").split())  # a textarea: a wrapped name is one line
        if name and name != node.get("name"):
            edits.append({"op": "rename", "node_id": nid, "name": name})
    new_name = _text(form, "add_name")
    if new_name:
        edits.append({"op": "add", "parent_id": _text(form, "add_parent") or "root", "name": new_name,
                      "description": _text(form, "add_description")})
    return {"edits": edits} if edits else {}


# The claims review of a checked text, typed as JSON (the edits `claimscope check --claims` and the
# MCP tool's `claims=` take).
CLAIM_EDITS_EXAMPLE = '[{"id": "c2", "check_worthy": false}, {"id": "c3", "text": "Statins lower LDL cholesterol."}]'


def claim_edits_from_form(form: FormData | Mapping[str, Any], claims: list[Any]) -> list[dict[str, Any]]:
    """The edits a submitted claims review stands for, applied by agent.check.apply_edits like the
    command line's claims file: an unticked claim is dropped, a ticked one the rules left out is
    checked, a ticked claim's changed wording rewords it (an emptied one is refused there, with the
    claim's id).
    Edits typed as JSON (a list, or a claims file's {"claims": [...]}) replace the form's."""
    raw = _text(form, "edits_json")
    if raw:
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InputError(f"the edits are a JSON list, e.g. {CLAIM_EDITS_EXAMPLE}; got {raw[:80]!r}.") from exc
        rows = data.get("claims") if isinstance(data, dict) else data
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise InputError(f"the edits are a JSON list of objects, e.g. {CLAIM_EDITS_EXAMPLE}.")
        return [{k: r[k] for k in ("id", "text", "check_worthy") if k in r} for r in rows]
    edits: list[dict[str, Any]] = []
    for c in claims:
        edit: dict[str, Any] = {"id": c.id}
        keep = bool(_text(form, f"check-{c.id}"))
        if keep != c.check_worthy:
            edit["check_worthy"] = keep
        field = f"text-{c.id}"
        wording = " ".join(_text(form, field).split())  # a textarea: a wrapped claim is one line
        if keep and field in form and wording != c.text:  # a dropped claim's wording is not checked
            edit["text"] = wording
        if len(edit) > 1:
            edits.append(edit)
    return edits
