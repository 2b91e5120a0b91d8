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
        "__version__",
        "load_settings",
    ]
    for name in assay.__all__:
        assert hasattr(assay, name), name
