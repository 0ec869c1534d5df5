"""The model registry: one :class:`~workbench.models.spec.ModelSpec` per model, one lookup.

Every fact about a model (prompt, sizing, sampling, retries, output format, context,
architecture numbers, vLLM arguments) lives in its spec, in :mod:`.catalog.vlm` (Chandra,
LightOnOCR) and :mod:`.catalog.others` (olmOCR, dots.ocr, DeepSeek-OCR), with the upstream
references in those modules' docstrings.

Lookup: :func:`get_spec` by exact id or alias (case-insensitive, raises ``KeyError``);
:func:`match_served_model` also accepts the name a server reports in ``/v1/models`` (a bare
or renamed repo id, a local path), matched on the repo basename, and returns None.
"""

from __future__ import annotations

from workbench.models.architectures import Architecture
from workbench.models.catalog import others as catalog_others
from workbench.models.catalog import vlm as catalog_vlm
from workbench.models.spec import ModelSpec, PageSizing

__all__ = ["CPU_SPEC", "ModelSpec", "PageSizing", "all_specs", "get_spec", "match_served_model"]

CPU_SPEC = ModelSpec(
    id="cpu",
    display="Embedded CPU engine (Tesseract + RapidOCR + CDLA layout)",
    family="cpu",
    parser="native",
    sizing=PageSizing(dpi=200, max_pixels=12_000_000),
    output_format="regions from the engine's own layout analysis",
    coord_scale="page pixels",
    notes="Runs offline on the CPU; its weights ship inside its wheels.",
)

_SPECS: dict[str, ModelSpec] = {}


def register_spec(spec: ModelSpec) -> ModelSpec:
    for key in spec.names:
        _SPECS[key.lower()] = spec
    return spec


for _spec in (CPU_SPEC, *catalog_vlm.SPECS, *catalog_others.SPECS):
    register_spec(_spec)


def all_specs() -> list[ModelSpec]:
    seen: dict[str, ModelSpec] = {}
    for spec in _SPECS.values():
        seen.setdefault(spec.id, spec)
    return list(seen.values())


def get_spec(model_id: str) -> ModelSpec:
    try:
        return _SPECS[model_id.lower().strip()]
    except KeyError:
        known = ", ".join(s.id for s in all_specs())
        raise KeyError(f"unknown model {model_id!r}; known: {known}") from None


def match_served_model(served: str) -> ModelSpec | None:
    """Best spec for a name from ``/v1/models``: exact id or alias, then the repo basename."""
    key = served.lower().strip()
    if key in _SPECS:
        return _SPECS[key]
    base = key.rstrip("/").rsplit("/", 1)[-1]
    for spec in all_specs():
        if base in {n.lower().rsplit("/", 1)[-1] for n in spec.names}:
            return spec
    return None


def find_architecture(model_id: str) -> Architecture | None:
    """The architecture of a model id, alias or served name (the registry's one lookup)."""
    spec = match_served_model(model_id)
    return spec.arch if spec else None
