"""Settings: config.yaml is the code's defaults, bad keys and values are refused at load with the key
named, and the settings that give a run option its default accept what the run options accept."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import get_args

import pytest
import yaml
from pydantic import BaseModel

from claimscope.agent import settings as settings_mod
from claimscope.agent.api import ToolOptions
from claimscope.agent.bounds import SOURCE_NAMES
from claimscope.agent.graph.state import InvestigationOptions
from claimscope.agent.investigation import default_options
from claimscope.agent.settings import ConfigError, Settings, load_settings, packaged_config_path
from claimscope.tools.errors import InputError
from claimscope.tools.models import SourceKind, SourceName

CONFIG = yaml.safe_load(packaged_config_path().read_text(encoding="utf-8"))
SECTIONS = {
    name: field.annotation
    for name, field in Settings.model_fields.items()
    if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)
}
# setting (section, key) -> the run option it is the default of.
OPTION_DEFAULTS = {
    ("hierarchy", "depth"): "depth",
    ("hierarchy", "top_k"): "top_k_aspects",
    ("verdict", "top_documents"): "top_documents",
    ("search", "top_k"): "docs_per_query",
    ("search", "sources"): "sources",
    ("stance", "claim_kind"): "claim_kind",
}


def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("CLAIMSCOPE_CONFIG", str(path))
    return path


def test_config_yaml_has_exactly_the_settings_keys():
    assert set(CONFIG) == set(Settings.model_fields)
    for name, model in SECTIONS.items():
        assert set(CONFIG[name]) == set(model.model_fields), name


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_config_yaml_values_are_the_code_defaults(section):
    model = SECTIONS[section]
    assert model.model_validate(CONFIG[section]).model_dump() == model().model_dump()


def test_config_yaml_data_dir_is_the_code_default():
    assert Path(CONFIG["data_dir"]) == Settings.model_fields["data_dir"].default


def test_misspelt_key_in_the_config_file_is_refused_with_a_hint(tmp_path, monkeypatch):
    path = _config(tmp_path, monkeypatch, "hierarchy:\n  detph: 3\n")
    with pytest.raises(ConfigError) as info:
        load_settings()
    msg = str(info.value)
    assert "hierarchy.detph: unknown key (did you mean 'depth'?)" in msg and str(path) in msg
    assert "\n" not in msg


def test_unknown_section_is_refused(tmp_path, monkeypatch):
    _config(tmp_path, monkeypatch, "hierachy:\n  depth: 3\n")
    with pytest.raises(ConfigError, match=r"hierachy: unknown key \(did you mean 'hierarchy'\?\)"):
        load_settings()


@pytest.mark.parametrize(("text", "key"), [
    ("verdict:\n  top_documents: 60\n", "verdict.top_documents"),
    ("search:\n  top_k: 500\n", "search.top_k"),
    ("search:\n  sources: []\n", "search.sources"),
    ("search:\n  sources: [local, arxiv]\n", "search.sources.1"),
    ("hierarchy:\n  depth: 4\n", "hierarchy.depth"),
    ("hierarchy:\n  top_k: 9\n", "hierarchy.top_k"),
    ("stance:\n  claim_kind: opinion\n", "stance.claim_kind"),
])
def test_a_value_no_run_accepts_is_refused_at_load(tmp_path, monkeypatch, text, key):
    _config(tmp_path, monkeypatch, text)
    with pytest.raises(ConfigError, match=f"invalid settings: {re.escape(key)}: "):
        load_settings()


def test_the_settings_bounds_are_the_run_options_bounds():
    # The largest and smallest values the settings accept are accepted by the run options...
    for edge in ({"depth": 3, "top_k": 8}, {"depth": 1, "top_k": 1}):
        top_docs, docs = (50, 200) if edge["depth"] == 3 else (1, 1)
        s = load_settings(hierarchy=edge, verdict={"top_documents": top_docs},
                          search={"top_k": docs, "sources": list(SOURCE_NAMES)}, stance={"claim_kind": "debate"})
        opts = default_options(s)
        assert (opts.depth, opts.top_k_aspects, opts.top_documents, opts.docs_per_query) == (
            edge["depth"], edge["top_k"], top_docs, docs)
    # ...and the settings, the API's options and the graph state's options have the very same
    # constraints (agent/bounds.py).
    keys = ("minimum", "maximum", "minItems", "maxItems", "enum", "items")
    state = InvestigationOptions.model_json_schema()["properties"]
    tool = ToolOptions.model_json_schema()["properties"]
    for (section, key), option in OPTION_DEFAULTS.items():
        setting = SECTIONS[section].model_json_schema()["properties"][key]
        want = {k: setting[k] for k in keys if k in setting}
        assert {k: state[option][k] for k in keys if k in state[option]} == want, option
        if option in tool:
            [typed] = [s for s in tool[option]["anyOf"] if s.get("type") != "null"]
            assert {k: typed[k] for k in keys if k in typed} == want, option


def test_env_override_works_and_a_misspelt_nested_env_var_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAIMSCOPE_LLM__MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("CLAIMSCOPE_SHARED_DATA", str(tmp_path))  # other CLAIMSCOPE_* variables are not settings
    assert load_settings().llm.model == "openai/gpt-4o-mini"
    monkeypatch.setenv("CLAIMSCOPE_HIERARCHY__DETPH", "3")
    with pytest.raises(ConfigError, match=r"hierarchy\.detph: unknown key .*environment variable CLAIMSCOPE_HIERARCHY__DETPH"):
        load_settings()


@pytest.mark.parametrize(("var", "closest"), [
    ("CLAIMSCOPE_HIERACHY__DEPTH", "CLAIMSCOPE_HIERARCHY__DEPTH"),  # a misspelt section
    ("CLAIMSCOPE_DATA_DI", "CLAIMSCOPE_DATA_DIR"),  # would otherwise write to the default data_dir
    ("claimscope_mcp_tokn", "CLAIMSCOPE_MCP_TOKEN"),  # names are case-insensitive, like the settings'
    ("CLAIMSCOPE_WHATEVER", None),
])
def test_an_unknown_claimscope_env_var_is_refused_with_the_closest_name(monkeypatch, var, closest):
    monkeypatch.setenv(var, "9")
    with pytest.raises(ConfigError) as info:
        load_settings()
    message = str(info.value)
    assert message.startswith(f"environment variable {var} is not a claimscope setting") and "\n" not in message
    assert (f"did you mean {closest}?" in message) if closest else ("did you mean" not in message)
    assert str(packaged_config_path()) in message  # where the list of settings is


def test_claimscope_variables_read_elsewhere_are_allowed(monkeypatch):
    for var in settings_mod.OTHER_VARIABLES:
        monkeypatch.setenv(var, str(packaged_config_path()) if var == "CLAIMSCOPE_CONFIG" else "x")
    monkeypatch.setenv("CLAIMSCOPE_STORE__CLUSTER__SHARD_NUMBER", "2")  # a nested setting
    assert load_settings().store.cluster.shard_number == 2


def test_every_claimscope_variable_the_project_names_is_known():
    # A CLAIMSCOPE_* variable read by code, tests, benchmarks or named in the docs that is neither a
    # setting nor on the allow-list would be refused at load.
    repo = Path(__file__).resolve().parent.parent
    known = set(settings_mod.setting_variables()) | set(settings_mod.OTHER_VARIABLES)
    files = [repo / "config.yaml", repo / "README.md", *(repo / "docs").rglob("*.md")]
    for folder in ("agent", "tools", "prompts", "evals", "tests"):
        files += (repo / folder).rglob("*.py")
    skip = {Path(settings_mod.__file__).resolve(), Path(__file__).resolve()}  # they spell names wrong on purpose
    named = {(m, f.name) for f in files if f.resolve() not in skip
             for m in re.findall(r"CLAIMSCOPE_[A-Z0-9_]*[A-Z0-9]\b", f.read_text(encoding="utf-8"))}
    assert {m for m, _ in named} >= {"CLAIMSCOPE_EVAL_WORK", "CLAIMSCOPE_MCP_TOKEN", "CLAIMSCOPE_DATA_DIR"}
    # docs/configuration.md shows a misspelt name being refused; it must stay refused.
    examples = {"CLAIMSCOPE_DATA_DI"}
    for name in examples:
        with pytest.raises(ConfigError, match=f"environment variable {name} is not a claimscope setting"):
            settings_mod.check_environment({name: "x"})
    assert sorted((m, f) for m, f in named if m not in known | examples) == []


def test_the_cli_refuses_a_misspelt_data_dir_variable(tmp_path, monkeypatch, capsys):
    from claimscope.agent.cli import main

    monkeypatch.setenv("CLAIMSCOPE_DATA_DI", str(tmp_path / "elsewhere"))
    monkeypatch.setattr(sys, "argv", ["claimscope", "llm", "info"])
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: environment variable CLAIMSCOPE_DATA_DI is not a claimscope setting "
                          "(did you mean CLAIMSCOPE_DATA_DIR?)") and len(err.splitlines()) == 1


def test_invalid_yaml_is_one_line(tmp_path, monkeypatch):
    _config(tmp_path, monkeypatch, "search: [\n")
    with pytest.raises(ConfigError, match="is not valid YAML") as info:
        load_settings()
    assert "\n" not in str(info.value)


def test_config_errors_are_input_errors():
    # Every path that turns a ClaimscopeError into a message (CLI, MCP tools, LangChain tools)
    # reports a bad setting the same way.
    assert issubclass(ConfigError, InputError)


def test_a_config_file_other_than_the_defaults_is_named_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(settings_mod, "_ANNOUNCED", set())
    monkeypatch.delenv("CLAIMSCOPE_CONFIG")
    load_settings()
    assert capsys.readouterr().err == ""  # the packaged defaults (conftest pins them) go unannounced
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text("hierarchy:\n  depth: 3\n", encoding="utf-8")
    assert load_settings().hierarchy.depth == 3
    load_settings()
    assert capsys.readouterr().err == f"claimscope: settings from {(tmp_path / 'config.yaml').resolve()}\n"


def test_the_cli_reports_a_bad_setting_in_one_line(tmp_path, monkeypatch, capsys):
    from claimscope.agent.cli import main

    monkeypatch.setattr(settings_mod, "_ANNOUNCED", set())
    monkeypatch.delenv("CLAIMSCOPE_CONFIG")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text("verdict:\n  top_documents: 60\n", encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["claimscope", "llm", "info"])
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0] == f"claimscope: settings from {(tmp_path / 'config.yaml').resolve()}"
    assert lines[1].startswith("error: invalid settings: verdict.top_documents: ") and len(lines) == 2


def test_one_source_type():
    assert set(get_args(SourceName)) == {s.value for s in SourceKind} == set(SOURCE_NAMES)


def test_the_check_limits_are_settings_and_a_misspelt_one_is_refused(tmp_path, monkeypatch):
    _config(tmp_path, monkeypatch, "check:\n  max_claims: 5\n  max_text_chars: 2000\n")
    settings = load_settings()
    assert (settings.check.max_claims, settings.check.max_text_chars) == (5, 2000)
    _config(tmp_path, monkeypatch, "check:\n  max_claim: 5\n")
    with pytest.raises(ConfigError, match=r"check.max_claim: unknown key \(did you mean 'max_claims'\?\)"):
        load_settings()
