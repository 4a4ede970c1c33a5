"""The configurations ``--emit`` writes, read by the trainers' own parsers: DeepSpeed's
``DeepSpeedConfig`` (its pydantic models refuse unknown keys and check the batch arithmetic)
and its learning-rate scheduler class, and the Hugging Face classes
(``transformers.TrainingArguments``, ``peft.LoraConfig``, ``transformers.BitsAndBytesConfig``),
which refuse unknown keyword arguments and bad values. They need torch, DeepSpeed,
transformers and PEFT (``pip install '.[trainers]'``, which tools/test.sh does): marked
``trainers``, run under CI=true and with ``--integration``."""

from __future__ import annotations

import warnings

import pytest

pytestmark = pytest.mark.trainers

RECIPES = [
    "recipe where data = text and task = generation and method = pretrain and params = 7B and hardware = h100 and gpus = 64",
    "recipe where architecture = llama and method = pretrain and params = 13B and hardware = a100 and gpus = 256",
    "recipe where architecture = llama and method = pretrain and params = 70B and hardware = h100 and gpus = 512 and offload = cpu",
    "recipe where model = llama-2-7b and method = full-fine-tune and hardware = h100 and gpus = 8 and tokens = 1B",
    "recipe where model = llama-2-7b and method = qlora and hardware = rtx-4090 and gpus = 1",
    "recipe where model = llama-2-70b and method = lora and hardware = h100 and gpus = 8",
    "recipe where model = llama-2-13b and method = qlora and hardware = a100-40gb and gpus = 1 and precision = fp16",
    "recipe where model = llama-2-70b and method = qlora and hardware = a100-40gb and gpus = 2",
    "recipe where model = llama-2-70b and method = qlora and hardware = rtx-4090 and gpus = 2 and offload = cpu",
    "recipe where model = llama-3-8b and method = full-fine-tune and hardware = a100 and gpus = 1 and tokens = 100M "
    "and master-weights = bf16 and optimizer-step = in-backward",
    "recipe where model = llama-2-7b and method = lora and hardware = a100 and gpus = 1 and optimizer-step = in-backward",
    "recipe where architecture = decoder and method = pretrain and params = 10M and tokens = 40M and hardware = h100 and gpus = 1",
]


def _configs(kb, fmt: str) -> list[tuple[str, dict]]:
    out = []
    for text in RECIPES:
        (a,) = kb.query(text)
        if fmt in a["configs"]:
            out.append((text, a["configs"][fmt]["config"]))
    return out


class _Unit:
    """A launcher's model-parallel unit as DeepSpeed reads it (Megatron-DeepSpeed's ``mpu``):
    the data-parallel copies its batch arithmetic counts."""

    def __init__(self, copies: int):
        self.copies = copies

    def get_data_parallel_world_size(self) -> int:
        return self.copies


def test_every_deepspeed_config_is_accepted_by_deepspeed(kb, monkeypatch):
    import deepspeed.runtime.config as ds_config
    import torch
    from deepspeed.runtime import lr_schedules
    from deepspeed.runtime.config import DeepSpeedConfig

    configs = _configs(kb, "deepspeed")
    assert len(configs) >= 3, "the pretraining and full fine-tuning recipes emit DeepSpeed configurations"
    monkeypatch.setattr(ds_config.dist, "get_rank", lambda: 0)  # (as on a launched rank: the unit gives the copies)
    for text, config in configs:
        (a,) = kb.query(text)
        parsed = DeepSpeedConfig(dict(config), mpu=_Unit(a["plan"]["fit"]["layout"]["data_parallel"]))
        assert parsed.zero_optimization_stage == config["zero_optimization"]["stage"], text
        assert parsed.train_micro_batch_size_per_gpu == config["train_micro_batch_size_per_gpu"], text
        assert parsed.gradient_accumulation_steps == config["gradient_accumulation_steps"], text
        if "gradient_clipping" in config:
            assert parsed.gradient_clipping == config["gradient_clipping"], text
        if "scheduler" in config:  # its parameters are the scheduler class's own
            weight = torch.nn.Parameter(torch.zeros(2))
            optimizer = torch.optim.AdamW([weight], **{k: v for k, v in config["optimizer"]["params"].items()})
            getattr(lr_schedules, config["scheduler"]["type"])(optimizer, **config["scheduler"]["params"])


def test_deepspeed_checks_the_batch_against_plans_data_parallel_copies(kb, monkeypatch):
    """With tensor parallelism (Llama 2 70B on 2,048 A100s: TP 2 × 1,024 copies) the file says
    train_batch_size, which DeepSpeed's own parser accepts when the launcher's model-parallel
    unit gives it plan's 1,024 data-parallel copies and refuses when every GPU is counted as a
    copy (where the batch and steps would silently double); the notes say where TP is set."""
    import deepspeed.runtime.config as ds_config
    from deepspeed.runtime.config import DeepSpeedConfig

    (a,) = kb.query("recipe where model = llama-2-70b and tokens = 2T and gpus = 2048 and hardware = a100")
    emitted = a["configs"]["deepspeed"]
    config, layout = emitted["config"], a["plan"]["fit"]["layout"]
    assert layout["tensor_parallel"] == 2 and layout["data_parallel"] == 1024
    assert config["train_batch_size"] == config["train_micro_batch_size_per_gpu"] * \
        config["gradient_accumulation_steps"] * layout["data_parallel"]
    assert any("--tensor-model-parallel-size 2" in n for n in emitted["notes"])

    monkeypatch.setattr(ds_config.dist, "get_rank", lambda: 0)
    assert DeepSpeedConfig(dict(config), mpu=_Unit(1024)).train_batch_size == config["train_batch_size"]
    with pytest.raises(Exception, match="train_batch_size"):
        DeepSpeedConfig(dict(config), mpu=_Unit(2048))


def test_deepspeed_refuses_what_the_test_would_miss(kb):
    """The check can fail: DeepSpeed's parser rejects a key it does not know."""
    from deepspeed.runtime.config import DeepSpeedConfig

    _, config = _configs(kb, "deepspeed")[0]
    broken = dict(config, zero_optimization=dict(config["zero_optimization"], stage_typo=1))
    with pytest.raises(Exception, match="stage_typo"):
        DeepSpeedConfig(broken)


def test_every_hugging_face_config_is_accepted_by_transformers_and_peft(kb):
    from peft import LoraConfig
    from transformers import BitsAndBytesConfig, TrainingArguments
    from transformers.training_args import OptimizerNames

    configs = _configs(kb, "hf-peft")
    assert len(configs) >= 3, "the LoRA and QLoRA recipes emit Hugging Face configurations"
    for text, config in configs:
        with warnings.catch_warnings():
            warnings.simplefilter("error", FutureWarning)  # no deprecated argument names
            # use_cpu: this machine has no GPU, which bf16 = True would otherwise need
            args = TrainingArguments(**config["training_arguments"], use_cpu=True)
        for key, value in config["training_arguments"].items():
            got = getattr(args, key)
            if key == "fsdp_config":   # TrainingArguments adds its defaults to the keys given
                assert {k: got[k] for k in value} == value, (text, got)
                continue
            assert (got.value if hasattr(got, "value") else got) == value, (text, key)
        lora = LoraConfig(**config["lora_config"])
        assert lora.r == config["lora_config"]["r"], text
        if "qlora" in text:
            bnb = BitsAndBytesConfig(**config["bnb_config"])
            assert bnb.load_in_4bit and bnb.bnb_4bit_quant_type == "nf4", text
            if args.fsdp:      # FSDP-QLoRA: the 4-bit weights stored in a float type FSDP shards
                assert str(bnb.bnb_4bit_quant_storage) == "torch.bfloat16", text
            assert args.optim == OptimizerNames.PAGED_ADAMW, (text, "QLoRA's paged AdamW, 32-bit states")
        else:
            assert "bnb_config" not in config and "optim" not in config["training_arguments"], text
    sharded = [(t, c) for t, c in configs if c["training_arguments"].get("fsdp")]
    assert {t for t, _ in sharded} == {RECIPES[5], RECIPES[7], RECIPES[8]}, \
        "the 70B runs on several GPUs are FSDP (8 H100s for LoRA, 2 A100 40GB or 2 RTX 4090 for QLoRA); one GPU is not"
    for text, config in sharded:
        assert config["training_arguments"]["fsdp_config"]["activation_checkpointing"] is True
        # FSDP's CPU offload (transformers' fsdp_config key, passed on to accelerate's plugin) only when asked
        assert config["training_arguments"]["fsdp_config"].get("cpu_offload", False) is ("offload = cpu" in text)
        assert "activation_checkpointing" not in config["training_arguments"]   # FSDP's own, as transformers advises
    with pytest.raises(TypeError):
        TrainingArguments(**dict(configs[0][1]["training_arguments"], learning_rat=1e-4), use_cpu=True)
    with pytest.raises(ValueError):  # the optimizer's name is checked against OptimizerNames
        TrainingArguments(**dict(configs[0][1]["training_arguments"], optim="paged_adamw_32"), use_cpu=True)


def test_a_warmup_share_is_read_as_a_share_and_the_notes_say_which_transformers_does(kb):
    """QLoRA's 3% warmup is written as ``warmup_steps = 0.03``: transformers 5 (what the
    ``trainers`` extra installs) reads a float below 1 as a share of the steps, as the deprecated
    ``warmup_ratio`` did; transformers 4 would read 0.03 steps, so the notes say to pass
    ``warmup_ratio`` there."""
    from transformers import TrainingArguments

    (a,) = kb.query(RECIPES[4])
    hf = a["configs"]["hf-peft"]
    share = hf["config"]["training_arguments"]["warmup_steps"]
    assert 0 < share < 1
    args = TrainingArguments(**hf["config"]["training_arguments"], use_cpu=True)
    assert args.get_warmup_steps(1000) == round(share * 1000)
    assert any("warmup_ratio" in n and "transformers 4" in n for n in hf["notes"]), hf["notes"]


def test_a_warmup_fits_the_run_it_is_written_for(kb):
    """QA8 M1: LLaMA's 2,000 warmup steps went into every decoder's pretraining, 157% of a
    40M-token run's 1,303 steps, and DeepSpeed's scheduler took them. They are LLaMA's for runs of
    1T tokens and more (rkg:scopeCondition, checked against plan's tokens when none are given);
    a shorter run warms up over Pythia's 1% of its steps, which DeepSpeed's scheduler counts out;
    and a warmup as long as the run is never written."""
    from recipekg.recipe.emit import deepspeed

    def warmup(a):
        return next(i for s in a["sections"] for i in s["items"] if (i.get("hyperparameter") or "").startswith("warmup"))

    (short,) = kb.query(RECIPES[-1])
    item = warmup(short)
    assert item["hyperparameter"] == "warmup-ratio" and item["value"] == 0.01
    assert [s["id"] for s in item["sources"]] == ["biderman2023pythia"]
    params = short["configs"]["deepspeed"]["config"]["scheduler"]["params"]
    assert params["warmup_num_steps"] == round(0.01 * params["total_num_steps"]) < params["total_num_steps"]
    (unsized,) = kb.query("recipe where architecture = decoder and method = pretrain and params = 125M and hardware = h100 "
                          "and gpus = 8")   # plan's 2.5B tokens: short of LLaMA's runs too
    assert warmup(unsized)["hyperparameter"] == "warmup-ratio"
    (long,) = kb.query("recipe where architecture = decoder and method = pretrain and params = 7B and tokens = 2T "
                       "and hardware = h100 and gpus = 256")
    item = warmup(long)
    assert item["value"] == 2000 and [s["id"] for s in item["sources"]] == ["touvron2023"]
    assert [a["setting"] for a in item["alternatives"]] == ["pythia-warmup-ratio"]
    item["value"] = 10.0 ** 9   # a warmup past the run's end: no scheduler, said
    config, notes = deepspeed.write(long)
    assert "scheduler" not in config and any("not shorter than the run's" in n for n in notes), notes


def test_the_checkpointing_argument_says_its_older_name(kb):
    """QA8 M3: outside FSDP the configuration sets TrainingArguments' activation_checkpointing
    (transformers 5's field, which this project's trainers extra installs); transformers 4 knows it
    only as gradient_checkpointing, which the notes say."""
    import dataclasses

    from transformers import TrainingArguments

    fields = {f.name: f.metadata.get("help", "") for f in dataclasses.fields(TrainingArguments)}
    assert "activation checkpointing" in fields["activation_checkpointing"].lower()
    assert "alias of `activation_checkpointing`" in fields["gradient_checkpointing"]
    (a,) = kb.query("recipe where model = llama-2-7b and method = qlora and hardware = rtx-4090 and gpus = 1")
    hf = a["configs"]["hf-peft"]
    assert hf["config"]["training_arguments"]["activation_checkpointing"] is True
    assert any("gradient_checkpointing" in n and "transformers 4" in n for n in hf["notes"]), hf["notes"]
