import assay


def test_public_api_is_pinned() -> None:
    assert assay.__all__ == [
        "AssayError",
        "BudgetExhausted",
        "ClaimLedger",
        "ClaimRecord",
        "ConfigError",
        "Evidence",
        "FetchError",
        "FetchSettings",
        "IntegrityError",
        "KeyStore",
        "MissingKeyError",
        "PolicyViolation",
        "ProviderError",
        "Run",
        "RunCancelled",
        "RunError",
        "RunInfo",
        "RunStore",
        "Settings",
        "SourceLedger",
        "SourceRecord",
        "UserError",
        "WebResearchResult",
        "__version__",
        "load_settings",
        "web_research",
        "web_research_async",
    ]
    for name in assay.__all__:
        assert hasattr(assay, name), name
