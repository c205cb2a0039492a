"""tilec.backend.pass_pipeline: PassPipeline(name, passes). A manifest's pipeline is
named after its target kind, so a backend reusing another's passes under its own kind
writes PassPipeline("mykind", get_backend("cpu").pipelines["c"].passes)."""

from .._core import Pass, PassPipeline

__all__ = ["Pass", "PassPipeline"]
