"""The model registry, the public API: ``from workbench.models import get_spec, fit_size``.

One :class:`ModelSpec` per model holds every fact (see :mod:`workbench.models.spec`);
:func:`get_spec` / :func:`match_served_model` are the one lookup; :func:`fit_size` is the one
page-sizing rule, shared by the pipeline and the memory planner.
"""

from workbench.models.architectures import Architecture
from workbench.models.registry import CPU_SPEC, all_specs, get_spec, match_served_model
from workbench.models.sizing import PageTokens, fit_size, page_tokens, planned_page
from workbench.models.spec import ModelSpec, PageSizing

__all__ = [
    "CPU_SPEC",
    "Architecture",
    "ModelSpec",
    "PageSizing",
    "PageTokens",
    "all_specs",
    "fit_size",
    "get_spec",
    "match_served_model",
    "page_tokens",
    "planned_page",
]
