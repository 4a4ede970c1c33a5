"""Training memory: the reference's rule of thumb (bytes per parameter), adjusted for the
optimizer and precision asked for, with its breakdown into weights, gradients, optimizer
states and activations.

    >>> from recipekg.plan.inputs import read_inputs
    >>> from recipekg.plan.kbview import KBView
    >>> ledger = Ledger(KBView(snap))
    >>> inputs = read_inputs(parse("plan where params = 1B and optimizer = adam-8bit")[0], snap)
    >>> mem = training_memory(ledger, inputs, Q.point(1e9))
    >>> show(mem.total, "bytes"), show(mem.per_param("optimizer_states"), "bytes/param")
    ('12–17.2 GB', '2–5.2 bytes/param')
    >>> [p["name"] for p in ledger.entry("memory")["parts"]]
    ['memory_weights', 'memory_gradients', 'memory_optimizer_states', 'memory_activations']
"""

from __future__ import annotations

from recipekg.formula.expr import Q, const_q
from recipekg.plan.figures import qjson, show
from recipekg.plan.inputs import Inputs
from recipekg.plan.kbview import const_json
from recipekg.plan.ledger import Ledger
from recipekg.plan.quantities import ALL_WEIGHTS, unit_of
from recipekg.record import Record
from recipekg.render import numbers as units

TYPE_CHECKING = False
if TYPE_CHECKING:  # the answers' types, for the type checker only
    from recipekg.contracts.plan import MemoryPart

# The symbols of the reference's memory breakdown (bf16 weights and gradients, Adam states)
WEIGHTS, GRADIENTS, ADAM_STATES, ACTIVATIONS = ("c_weight_bytes_per_param_bf16", "c_gradient_bytes_per_param_bf16",
                                                "c_adam_state_bytes_per_param", "c_activation_bytes_per_param")
_MEMORY_MISMATCH = "memory-breakdown-vs-rule-of-thumb"


class Memory(Record):
    """The plan's training memory (the rule of thumb) and the parts of its breakdown: name →
    (bytes per parameter, the KB constants behind it)."""

    total: Q
    parts: dict[str, tuple[Q, list[dict]]]

    def per_param(self, part: str) -> Q:
        return self.parts[part][0]


def training_memory(ledger: Ledger, inputs: Inputs, params: Q) -> Memory:
    """Record the training memory and its breakdown, for the plan's optimizer and precision."""
    kb = ledger.kb
    parts = {name: (kb.q(sym), [kb.constant(sym)]) for name, sym in
             (("weights", WEIGHTS), ("gradients", GRADIENTS), ("optimizer_states", ADAM_STATES),
              ("activations", ACTIVATIONS))}
    adjusted = _precision(ledger, inputs.precision, parts)
    adjusted = _optimizer(ledger, inputs.optimizer, parts) or adjusted
    per = {k: v[0] for k, v in parts.items()}
    if adjusted:
        f = kb.formula("memory", "weight_bytes_per_param", "optimizer_state_bytes_per_param")
        parts_in = {"weight_bytes_per_param": per["weights"], "gradient_bytes_per_param": per["gradients"],
                   "optimizer_state_bytes_per_param": per["optimizer_states"]}
    else:
        f = kb.formula("memory", "c_training_bytes_per_param", "params")
        parts_in = {}
    memory, env = ledger.compute(f, {**parts_in, "params": params})
    bytes_per_param, _ = ledger.compute(f, {**parts_in, "params": Q.point(1)})
    breakdown_f = kb.formula("memory", ACTIVATIONS, ADAM_STATES)
    sub: list[MemoryPart] = [{"name": f"memory_{name}", "label": name.replace("_", " "), **qjson(bpp * params), "unit": unit_of(f"memory_{name}"),
            "bytes_per_param": qjson(bpp), "constants": [const_json(c) for c in consts],
            "sources": kb.sources(*consts),
            "formula": {"id": breakdown_f.id, "expression": breakdown_f.data["expression"]},
            "derivation": f"{show(bpp, 'bytes/param')} × {show(params, 'parameters')} = {show(bpp * params, 'bytes')}"}
           for name, (bpp, consts) in parts.items()]
    total = sum(per.values(), Q.point(0))
    ledger.add("memory", memory, formula=f, env=env, parts=sub, bytes_per_param=qjson(bytes_per_param),
               parts_sum={"bytes_per_param": qjson(total), **qjson(total * params)})
    ledger.note(f"the parts add up to {show(total, 'bytes/param')} while the rule of thumb says "
                f"{show(bytes_per_param, 'bytes/param')}: the reference disagrees with itself at the low end; "
                f"the plan's memory is the rule of thumb", kb.fact(_MEMORY_MISMATCH) or breakdown_f.data,
                only=ALL_WEIGHTS)
    return Memory(memory, parts)


def _precision(ledger: Ledger, precision: str | None, parts: dict) -> bool:
    """Adjust ``parts`` for the precision; True when they changed."""
    if precision is None:
        return False
    kb = ledger.kb
    pid = kb.node_id(precision)
    if pid == "fp32":
        fp32 = kb.constant("c_fp32_bytes_per_value")
        parts["weights"] = parts["gradients"] = (const_q(fp32), [fp32])
        ledger.note(f"precision = fp32: weights and gradients at {units.grouped(fp32['value'])} bytes per "
                    f"parameter each instead of bf16's {units.grouped(kb.q(WEIGHTS).value)}", fp32)
        if ledger.method != "inference":  # (a training run: what the rest of the plan still counts in 16 bits)
            ledger.note("precision = fp32: only the rule of thumb's training memory counts 4-byte weights and "
                        "gradients; the layout's memory per GPU (the fit) keeps 16-bit weights, gradients and "
                        "activations, and the time the dense 16-bit peak, which fp32 does not run at (the KB has "
                        "no fp32 or TF32 peak): for an fp32 run both are the low end", warn=True)
        return True
    if pid == "fp16":
        ledger.note("precision = fp16: a 16-bit format like bf16, so the breakdown's bf16 byte counts are "
                    "used (an assumption: the KB has no separate fp16 figure)", kb.constant(WEIGHTS))
    elif pid in ("int8", "int4") or ledger.method == "inference":
        return False                    # weights at inference (plan/methods.py gives their bytes, and says so for training)
    elif pid != "bf16":
        technique = kb.iri(f"{pid}-training")
        traffic = kb.constants_for(technique, "memory-traffic") if technique else []
        extra = (f"; it gives {pid.upper()} only as a cut in memory traffic "
                 f"({units.grouped(traffic[0]['value'])}× less than bf16)" if traffic else "")
        ledger.note(f"precision = {pid}: the KB has no figure for the bytes per parameter {pid.upper()} "
                    f"training keeps in memory{extra}; the estimate keeps the reference's bf16 breakdown",
                    *traffic)
    return False


def _optimizer(ledger: Ledger, optimizer: str | None, parts: dict) -> bool:
    """Adjust the optimizer states in ``parts`` for the optimizer; True when they changed."""
    if optimizer is None:
        return False
    from recipekg.reason.shortfall import state_multiple  # here: a plan without an optimizer needs none of it

    kb = ledger.kb
    node = kb.snap["nodes"][optimizer]
    multiple = state_multiple(kb, optimizer)  # (what the reasoner's saving of an optimizer reads too)
    if multiple is None:
        ledger.note(f"the KB has no optimizer-state memory multiple for {node['label']}: the breakdown's "
                    f"Adam figure ({units.grouped(kb.q(ADAM_STATES).value)} bytes/param) is used",
                    kb.constant(ADAM_STATES))
        return False
    f = kb.formula("optimizer_state_bytes_per_param", "optimizer_state_multiple")
    per_param, _ = ledger.compute(f, {"optimizer_state_multiple": const_q(multiple)})
    used = [multiple, *(kb.constant(n) for n in sorted(f.parsed.names) if n in kb.by_symbol)]
    parts["optimizer_states"] = (per_param, used)
    ledger.note(f"optimizer = {node['id']}: optimizer states at {show(const_q(multiple))} × params "
                f"(the optimizer table's memory multiple) × "
                f"{units.grouped(kb.q('c_fp32_bytes_per_value').value)} bytes per state value (fp32, as "
                f"in the breakdown's Adam line) = {show(per_param, 'bytes/param')}; an assumption about "
                f"what the table's multiple counts (formula {f.id})", multiple, f.data)
    return True
