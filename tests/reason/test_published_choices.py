"""Choices a method's own paper settles where the reference's generic rows did not (audit 8/10,
9/03, 9/10, 9/11, 9/16): ConvNeXt trains with AdamW, video from scratch is SlowFast, a spiking
fp16 run moves to bf16, a mixture of experts that diverges gets the router z-loss, and 4-bit
weights make room for a KV cache that does not fit beside 16-bit ones."""

from __future__ import annotations

from support import scores_of


def test_convnext_trains_with_adamw_a_resnet_with_sgd(kb):
    (a,) = kb.query("recommend optimizer where architecture = convnext and data = images and method = pretrain")
    assert a["decision"]["pick"] == "adamw"
    (b,) = kb.query("recommend optimizer where architecture = resnet and data = images")
    assert b["decision"]["pick"] == "sgd-momentum"


def test_video_with_no_pretrained_model_is_slowfast(kb):
    (a,) = kb.query("recommend architecture where data = video and pretrained = no and samples = 240k")
    assert a["decision"]["pick"] == "slowfast"
    assert all(u["dimension"] != "pretrained" for u in a.get("unused", ()))
    (b,) = kb.query("recommend architecture where data = video and pretrained = yes")
    assert b["decision"]["pick"] in ("timesformer", "video-swin")
    assert scores_of(b).get("slowfast", 0) <= 0


def test_slowfast_is_a_video_model(kb):
    (a,) = kb.query("explain slowfast where data = images")
    assert a["excluded"]["property"]["id"] == "slowfast-for-video" and a["rank"] is None


def test_a_loss_spike_in_fp16_moves_to_bf16_where_the_hardware_runs_it(kb):
    (a,) = kb.query("recommend fix where symptom = loss-spike and method = pretrain and params = 175B "
                    "and hardware = a100 and precision = fp16")
    assert a["decision"]["pick"] == "rollback-checkpoint"  # the recovery stays first
    assert "bf16-training" in a["decision"]["runner_ups"]
    assert all(u["dimension"] != "precision" for u in a.get("unused", ()))
    (v100,) = kb.query("recommend fix where symptom = loss-spike and precision = fp16 and hardware = v100")
    assert "bf16-training" in {e["id"] for e in v100.get("excluded", ())}


def test_a_diverging_mixture_of_experts_gets_the_router_z_loss(kb):
    (a,) = kb.query("recommend fix where symptom = slow-divergence and architecture = mixture-of-experts "
                    "and method = pretrain")
    assert a["decision"]["pick"] == "z-loss"


def test_4bit_weights_make_room_for_the_cache(kb):
    """Mistral 7B, 32 sequences of 16K on one RTX 4090: the 16-bit weights and the cache do not
    fit together, the 4-bit weights and the cache do (kv-load-4bit under 100%)."""
    (a,) = kb.query("recommend technique where method = inference and model = mistral-7b and hardware = rtx-4090 "
                    "and gpus = 1 and batch-size = 32 and seq-length = 16k")
    first = {a["decision"]["pick"], *a["decision"].get("tied_with", ())}
    assert "weight-quantization" in first
    (b,) = kb.query("recommend technique where method = inference and model = llama-3-70b and hardware = a100 "
                    "and gpus = 2 and batch-size = 8 and seq-length = 128k")
    assert not any(r["rule"].endswith("4bit-fits-weight-quantization")
                   for res in b["results"] for r in res["because"] if r["match"] == "full")


def test_nans_in_fp8_move_to_bf16_too(kb):
    """FP8's encodings have at most fp16's exponent bits (E5M2 five, E4M3 four): switching to bf16
    fixes its overflowing NaNs as it fixes fp16's (audit 10/12: "no pick", bf16 ruled out)."""
    (a,) = kb.query("recommend fix where symptom = nan and precision = fp8 and method = pretrain and hardware = h100")
    assert a["decision"]["pick"] == "bf16-training"
    (b,) = kb.query("recommend fix where symptom = nan and precision = bf16 and method = pretrain and hardware = h100")
    assert "bf16-training" in {e["id"] for e in b.get("excluded", ())}


def test_forecasting_models_are_not_series_classifiers(kb):
    (a,) = kb.query("recommend architecture where data = time-series and task = classification and samples = 10k")
    ruled = {e["id"] for e in a["excluded"]}
    assert {"informer", "patchtst", "n-beats", "timesfm", "prophet"} <= ruled
    assert a["decision"]["pick"] not in ruled
    (f,) = kb.query("recommend architecture where data = time-series and task = forecasting and samples = 200k")
    assert not {"informer", "patchtst"} & {e["id"] for e in f.get("excluded", ())}


def test_text_from_images_is_a_vision_encoder_on_a_language_model(kb):
    """CLIP matches images with captions and writes no text (audit 10/01): for generation the
    pick is a LLaVA-style model; for matching, CLIP stays."""
    (a,) = kb.query("recommend architecture where data = multimodal and task = generation and pretrained = yes")
    assert a["decision"]["pick"] == "llava"
    assert "clip" in {e["id"] for e in a["excluded"]}
    (b,) = kb.query("recommend architecture where data = multimodal and task = classification")
    assert b["decision"]["pick"] == "clip" or "clip" in b["decision"].get("tied_with", ())


def test_a_mixture_of_experts_too_large_for_one_gpu_places_its_experts(kb):
    """DeepSeek-V3 (671B) trained with 64-way expert parallelism, 16-way pipeline and ZeRO-1
    data parallelism (Section 3.2; audit 10/05: FSDP was the pick, expert parallelism weak)."""
    (a,) = kb.query("recommend approach where architecture = mixture-of-experts and params = 671B and method = pretrain "
                    "and hardware = h100 and gpus = 2048")
    assert a["decision"]["pick"] == "expert-parallelism"
    (small,) = kb.query("recommend approach where architecture = mixture-of-experts and params = 1B and method = pretrain "
                        "and hardware = h100 and gpus = 8")
    assert small["decision"]["pick"] != "expert-parallelism"


def test_long_speech_with_a_pretrained_model_fine_tunes_whisper(kb):
    """Audit 11/02: Whisper and the long-audio state-space model tied, first by id, with
    pretrained = yes unused; Whisper is the pretrained model the reference says to fine-tune."""
    (a,) = kb.query("recommend architecture where data = audio and task = speech-recognition "
                    "and pretrained = yes and input-length = long")
    assert a["decision"]["pick"] == "whisper" and not a["decision"].get("tied_with")
    assert all(u["dimension"] != "pretrained" for u in a.get("unused", ()))
    (b,) = kb.query("recommend architecture where data = audio and task = speech-recognition and pretrained = no")
    assert "whisper" in {e["id"] for e in b["excluded"]}


def test_long_speech_with_the_data_read_from_the_task_is_whisper_too(kb):
    """Audit 13/02: with data read from the task (not given), the long-audio state-space rule
    outranked Whisper; Whisper's paper transcribes long audio 30 seconds at a time (Section 3.8)."""
    (a,) = kb.query("recommend architecture where task = speech-recognition and input-length = long and pretrained = yes")
    assert a["decision"]["pick"] == "whisper"
    whisper = next(r for r in a["results"] if r["id"] == "whisper")
    assert "long-speech-pretrained-whisper" in {r["id"] for r in whisper["because"]}
    (b,) = kb.query("recommend architecture where task = speech-recognition and input-length = long")
    assert "long-speech-pretrained-whisper" in {r["id"] for r in b["results"][0]["because"]}


def test_long_speech_recognition_without_pretrained_given_is_whisper(kb):
    """QA round 5, Q01: with `pretrained` not given, long-audio speech recognition picked the
    state-space model: Whisper's long-form rule waited for pretrained = yes, and the long-audio
    rule, holding on the data the task implies, counted the task as wholly as Whisper's rule
    written for it. Whisper being pretrained is its property (pretrained = no rules it out); a
    rule on what the task implies uses the task in part."""
    (a,) = kb.query("recommend architecture where task = speech-recognition and samples = 300k "
                    "and input-length = long and inference-budget = tight")
    assert a["decision"]["pick"] == "whisper"
    by_id = {r["id"]: r for r in a["results"]}
    assert by_id["whisper"]["score"] > by_id["state-space-model"]["score"]
    (b,) = kb.query("recommend architecture where task = speech-recognition and input-length = long and pretrained = no")
    assert a["decision"]["pick"] == "whisper" and "whisper" in {e["id"] for e in b["excluded"]}
    assert b["decision"]["pick"] == "state-space-model"
    (c,) = kb.query("recommend architecture where data = audio and input-length = long")
    assert c["decision"]["pick"] == "state-space-model"


def test_a_value_the_query_implies_ranks_alike_given_or_not(kb):
    """Giving what another constraint already implies (data = text beside a Llama model or a
    summarisation task) says nothing more: the ranking is the same."""
    for base in ("recommend approach where model = llama-2-13b and gpu = rtx-4090 and gpus = 1 and examples = 500",
                 "recommend architecture where task = speech-recognition and input-length = long",
                 "recommend architecture where horizon = short and variables = univariate and samples = 30k"):
        data = {"llama": "text", "speech": "audio", "horizon": "time-series"}
        value = next(v for k, v in data.items() if k in base)
        (a,), (b,) = kb.query(base), kb.query(f"{base} and data = {value}")
        assert [(r["id"], r["score"]) for r in a["results"]] == [(r["id"], r["score"]) for r in b["results"]], base


def test_generating_images_is_latent_diffusion_not_a_classifier(kb):
    """Audit 11/05: text-to-image on 2M images picked a ViT classifier trained from scratch. The
    image advice's recognition models say they do not generate; latent diffusion (Rombach et
    al., CVPR 2022) is the pick."""
    (a,) = kb.query("recommend architecture where data = images and task = generation and images = 2M "
                    "and hardware = rtx-4090 and gpus = 4")
    assert a["decision"]["pick"] == "latent-diffusion"
    assert {"vit", "cnn", "coatnet"} <= {e["id"] for e in a["excluded"]}
    (b,) = kb.query("recommend architecture where data = images and task = classification and images = 2M")
    assert b["decision"]["pick"] == "vit"
    assert "latent-diffusion" not in {r["id"] for r in b["results"] if r["group"] == "matches"}


def test_a_bf16_mixture_of_experts_computes_its_router_in_float32(kb):
    """Audit 12/23: a diverging bf16 mixture of experts got the router z-loss with precision = bf16
    unused. Switch Transformers' selective precision (Section 2.4) casts the router to float32."""
    (a,) = kb.query("recommend fix where symptom = slow-divergence and architecture = mixture-of-experts "
                    "and precision = bf16")
    assert a["decision"]["pick"] == "router-fp32" and "z-loss" in a["decision"]["runner_ups"]
    assert "precision" not in {u["dimension"] for u in a["unused"]}
    (b,) = kb.query("recommend technique where architecture = decoder and precision = bf16")
    assert "router-fp32" in {e["id"] for e in b["excluded"]} or "router-fp32" not in {r["id"] for r in b["results"]}


def test_lora_on_billions_of_tokens_carries_a_note(kb):
    """Audit 12/05: a LoRA of Mistral 7B on 8B tokens left the tokens unused. At continued
    pretraining's scale LoRA learns less than a full fine-tune (Biderman et al. 2024, Abstract): a
    note on LoRA, not a penalty, and none when the tokens are not given or few."""
    def lora(text):
        (a,) = kb.query(text)
        entries = [m for r in a["results"] for m in (r, *r.get("members", ()))]
        return a, next(m for m in entries if m["id"] == "lora")
    a, entry = lora("recommend approach where model = mistral-7b and method = lora and data = text and tokens = 8B")
    assert [n["id"] for n in entry.get("notes", ())] == ["lora-learns-less-at-scale"]
    assert "tokens" not in {u["dimension"] for u in a["unused"]}
    for tokens in ("", " and tokens = 500M"):
        _, entry = lora(f"recommend approach where model = mistral-7b and method = lora and data = text{tokens}")
        assert not entry.get("notes")


def test_generating_video_is_a_video_latent_diffusion_model(kb):
    """Audit 12/03: text-to-video had no pick though the KB holds latent diffusion: Video LDMs
    (Blattmann et al., CVPR 2023) add temporal layers to an image latent diffusion model."""
    (a,) = kb.query("recommend architecture where data = video and task = generation and samples = 10M")
    assert a["decision"]["pick"] == "latent-diffusion"
    assert {s["id"] for r in a["results"][:1] for x in r["because"] for s in x["sources"]} >= {"blattmann2023"}


def test_questions_about_images_are_llava(kb):
    """Audit 10/01's remainder: multimodal question answering picked the unified transformer (CLIP
    matches, it writes no answer). LLaVA fine-tuned on Science QA reached 92.53% (its abstract)."""
    (a,) = kb.query("recommend architecture where data = multimodal and task = question-answering and pretrained = yes")
    assert a["decision"]["pick"] == "llava"


def test_a_diverging_transformer_gets_qk_norm_for_the_run_going_forward(kb):
    """Audit 13/05: a dense run's loss spike got PaLM's recovery and no QK-norm, though ViT-22B's
    divergence at about 8B parameters came from the attention logits (Dehghani et al., Section 2).
    It ranks after the recovery, and a fine-tune (which keeps its architecture) rules it out."""
    (a,) = kb.query("recommend fix where symptom = loss-spike and params = 30B and precision = bf16 and gpus = 512")
    ids = [r["id"] for r in a["results"] if r["group"] == "matches"]
    assert ids[0] == "rollback-checkpoint" and "qk-norm" in ids
    qk = next(r for r in a["results"] if r["id"] == "qk-norm")
    assert qk["because"][0]["id"] == "loss-divergence-qk-norm"
    assert {s["id"] for s in qk["because"][0]["sources"]} == {"dehghani2023"}
    (b,) = kb.query("recommend fix where symptom = loss-spike and method = full-fine-tune")
    assert "qk-norm" in {e["id"] for e in b["excluded"]}


def test_a_kinds_property_shown_for_a_choice_names_its_own_paper_first(kb):
    """QA round 6, F12: Lion's 'training methods it is for' cited only Adam's and AdamW's papers
    (a property of every optimizer); shown for Lion, it names Lion's own paper first, as the
    method's, then the kind's sources."""
    (a,) = kb.query("explain lion where params = 7B and method = pretrain")
    (prop,) = [p for p in a["properties"] if p["id"] == "optimizer-trains-weights"]
    lion = [p["id"] for p in a["choice"]["papers"]]
    assert lion and [(s["id"], s["role"]) for s in prop["sources"][:len(lion)]] == [(p, "method") for p in lion]
    assert {"kingma2014", "loshchilov2017"} <= {s["id"] for s in prop["sources"]}
