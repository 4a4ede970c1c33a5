"""Memories sized in powers of two are written in GiB (audit 6/07: a TPU v4's 32 GiB read
"gpu-memory = 34.359738368GB"), and what is written parses back to the same number."""

from __future__ import annotations

import pytest

from recipekg.render.numbers import bytes_, value


@pytest.mark.parametrize("x", [float(1 << 30), 34359738368.0, 1.0200547328e11, float(96 << 30)])
def test_a_whole_number_of_gib_is_written_in_gib_and_parses_back(kb, x):
    text = value(x, "bytes")
    assert text.endswith("GiB"), text
    (a,) = kb.query(f"recommend optimizer where gpu-memory = {text}")
    assert next(c["value"] for c in a["constraints"] if c["dimension"] == "gpu-memory") == x


@pytest.mark.parametrize("x", [8e10, 1.6e10, 1.28e11, 1e12])
def test_round_decimal_sizes_stay_in_gb(x):
    assert "GiB" not in bytes_(x, exact=True)


def test_estimates_keep_three_digits(kb):
    assert bytes_(34359738368.0) == "34.4GB"
    (a,) = kb.query("recommend optimizer where method = pretrain and params = 11B and hardware = tpu-v4 and gpus = 256")
    shown = next(c for c in a["constraints"] if c["dimension"] == "gpu-memory")
    assert shown["value"] == 34359738368.0  # the JSON keeps the number; the text writes 32GiB
