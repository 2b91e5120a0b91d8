"""The settings page words every setting as a person reads it (issue 26): "yes"/"no" and
"—", as the rest of the page does, never Python's True, False or None."""

from __future__ import annotations

import re
from pathlib import Path

from assay.config import load_settings
from assay.web.app import ServerConfig, create_app
from tests.web.test_api import api_client, run_async


def test_the_effective_configuration_has_no_python_literals(isolated_home: Path) -> None:
    (isolated_home / "config.toml").write_text("[fetch]\naccept_pdf = false\n")
    app = create_app(ServerConfig(load_settings(home=isolated_home)))
    pages: list[str] = []

    async def scenario() -> None:
        async with api_client(app) as client:
            pages.append((await client.get("/settings")).text)

    run_async(scenario)
    block = re.search(r'<dl class="config" id="config">(.*?)</dl>', pages[0], re.S)
    assert block
    rows = dict(re.findall(r"<dt>([^<]+)</dt><dd>([^<]*)</dd>", block.group(1)))
    assert rows["fetch.enabled"] == "yes" and rows["fetch.accept_pdf"] == "no"
    assert rows["model"] == "—"
    assert not {"True", "False", "None", "[]", "{}"} & set(rows.values()), rows


def test_setting_text_reads_values_as_a_person_does() -> None:
    from assay.web.render import setting_text

    assert [setting_text(v) for v in (True, False, None, "", [], {}, 3, "x")] == [
        "yes", "no", "—", "—", "—", "—", "3", "x",
    ]  # fmt: skip
    assert setting_text([True, "a"]) == "yes, a"
