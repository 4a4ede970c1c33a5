"""The device a trainer runs on (kb/devices.ttl): a recipe writes no configuration for a trainer
that does not run on its hardware, and says why with the sources (QA round 6, F3: a DeepSpeed
configuration for a TPU)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from recipekg.cli.main import main
from recipekg.errors import KBError
from recipekg.knowledge.terms import RKG

TPU = "recipe where params = 1B and hardware = tpu-v5p and gpus = 64 and data = text"


def test_a_tpu_recipe_writes_no_deepspeed_configuration_and_says_why(kb):
    (a,) = kb.query(TPU)
    assert "deepspeed" not in a["configs"]
    why = a["no_configs"]["deepspeed"]
    assert "deepspeed-accelerators" in why and "pytorch-xla-docs" in why and "TPU v5p" in why
    # the fine-tune format's reason no longer points to the refused one
    assert "--emit deepspeed" not in a["no_configs"]["hf-peft"]
    result = CliRunner().invoke(main, ["query", TPU, "--emit", "deepspeed"])
    assert result.exit_code == 2 and "nothing to emit as deepspeed: DeepSpeed runs on" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("hardware", ["h100", "mi300x", "rtx-4090"])
def test_a_cuda_device_still_gets_its_deepspeed_configuration(kb, hardware):
    """NVIDIA GPUs and AMD GPUs (PyTorch's ROCm build reuses torch.cuda) are cuda devices."""
    (a,) = kb.query(TPU.replace("tpu-v5p", hardware).replace("64", "8"))
    assert "deepspeed" in a["configs"] and "deepspeed" not in a["no_configs"]


def test_every_bundled_hardware_states_its_device_and_every_device_its_sources(kb):
    """A new accelerator without a device type would write every trainer's configuration for it."""
    snap = kb.snap
    for iri, figures in snap["hardware"].items():
        devices = figures.get(RKG.deviceType)
        assert devices and len(devices) == 1, iri
        assert snap["nodes"][devices[0]]["sources"], devices[0]
    assert all(t["devices"] for t in snap["trainers"].values())


@pytest.mark.parametrize("statement", [
    "kb:tpu-v5p rkg:deviceType kb:device-cuda .",
    "kb:trainer-deepspeed rkg:runsOnDevice kb:device-xla .",
])
def test_an_extension_cannot_move_bundled_hardware_or_trainers_to_another_device(tmp_path, statement):
    import recipekg

    path = tmp_path / "team.ttl"
    path.write_text("@prefix rkg: <https://w3id.org/recipekg/ns#> .\n"
                    "@prefix kb: <https://w3id.org/recipekg/id/> .\n" + statement + "\n")
    with pytest.raises(KBError):
        recipekg.load([path], use_cache=False)


def test_an_extension_trainer_without_a_writer_adds_no_format(tmp_path):
    """A trainer an extension describes has no configuration writer: it refuses nothing."""
    import recipekg

    path = tmp_path / "team.ttl"
    path.write_text("\n".join([
        "@prefix rkg: <https://w3id.org/recipekg/ns#> .", "@prefix kb: <https://w3id.org/recipekg/id/> .",
        "@prefix skos: <http://www.w3.org/2004/02/skos/core#> .", "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
        "@prefix prov: <http://www.w3.org/ns/prov#> .", "@prefix paper: <https://w3id.org/recipekg/paper/> .",
        'kb:team-trainer a rkg:Trainer ; rdfs:label "Team trainer" ; skos:notation "team-trainer" ;',
        "    rkg:runsOnDevice kb:device-cuda ; prov:wasDerivedFrom paper:deepspeed-accelerators ."]) + "\n")
    (a,) = recipekg.load([path], use_cache=False, shacl=False).query(TPU)
    assert set(a["no_configs"]) == {"deepspeed", "hf-peft"}
