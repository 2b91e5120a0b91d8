import assay


def test_public_api_is_pinned() -> None:
    assert assay.__all__ == [
        "AssayError",
        "BudgetExhausted",
        "ClaimLedger",
        "ClaimRecord",
        "ConfigError",
        "DeepResult",
        "Evidence",
        "FetchError",
        "FetchSettings",
        "IntegrityError",
        "KeyStore",
        "MissingKeyError",
        "Model",
        "ModelFactory",
        "ModelOptions",
        "ModelProfile",
        "ModelReply",
        "ModelRequest",
        "PolicyViolation",
        "ProtocolRequest",
        "ProtocolResult",
        "ProtocolSpec",
        "ProviderError",
        "ResearchResult",
        "Run",
        "RunCancelled",
        "RunEnv",
        "RunError",
        "RunInfo",
        "RunStore",
        "ScriptedModel",
        "SearchProvider",
        "SearchProviderFactory",
        "SearchResult",
        "Settings",
        "SourceLedger",
        "SourceRecord",
        "SynthResult",
        "UserError",
        "WebResearchResult",
        "__version__",
        "ask",
        "ask_async",
        "deep_research",
        "deep_research_async",
        "load_settings",
        "research",
        "research_async",
        "resume_async",
        "resume_protocol",
        "run_protocol",
        "synth",
        "synth_async",
        "web_research",
        "web_research_async",
    ]
    for name in assay.__all__:
        assert hasattr(assay, name), name
    assert sorted(assay.__all__) == assay.__all__


def test_import_assay_loads_no_protocol_until_one_is_used() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, assay; heavy = [m for m in ('trafilatura', 'assay.protocols.research', "
        "'pydantic_ai') if m in sys.modules]; print(heavy); "
        "assay.research; print('assay.protocols.research' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "True"]


def test_sync_wrappers_take_the_typed_keywords_of_their_async_twins() -> None:
    import inspect

    pairs = [
        (assay.research, assay.research_async),
        (assay.ask, assay.ask_async),
        (assay.deep_research, assay.deep_research_async),
        (assay.synth, assay.synth_async),
        (assay.web_research, assay.web_research_async),
    ]
    for sync, twin in pairs:
        given = inspect.signature(sync, eval_str=True).parameters
        assert all(p.kind is not p.VAR_KEYWORD for p in given.values()), sync.__name__
        expected = inspect.signature(twin, eval_str=True).parameters
        assert {n: p.annotation for n, p in given.items()} == {
            n: p.annotation for n, p in expected.items()
        }, sync.__name__
