"""What the trainers need from a causal LM outside TRL: loading (a Hugging Face folder, or a GGUF file
through transformers' GGUF support), the chat prompt and the gold reply's tokens, seeded sampling
(`serve`), per-token log-probs and the exact per-token KL under teacher forcing (Salvage-DS's anchor,
the kl_ref chart), devices (CPU, one GPU, or DDP under torchrun/accelerate), checkpoints and the
metrics JSONL the CLI reads."""

from __future__ import annotations

import copy
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from .data import Chat

# ------------------------------------------------------------------------------------ devices


@dataclass
class Dist:
    """Where this process runs: rank/world under torchrun or accelerate launch, else 0/1."""

    rank: int = 0
    world: int = 1
    device: torch.device = torch.device("cpu")

    @property
    def main(self) -> bool:
        return self.rank == 0


def setup_dist(device: str | None = None) -> Dist:
    """Initializes torch.distributed when launched with WORLD_SIZE > 1 (NCCL on GPUs, gloo on CPUs)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if device is None or device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    dev = torch.device(f"cuda:{local}" if device == "cuda" else device)
    if dev.type == "cuda":
        torch.cuda.set_device(dev)
    if world > 1 and not torch.distributed.is_initialized():
        torch.distributed.init_process_group("nccl" if dev.type == "cuda" else "gloo")
    return Dist(rank=rank, world=world, device=dev)


def teardown_dist() -> None:
    """Waits for every process, then closes the process group. A process that exits with gloo's
    threads still live can abort at exit ("terminate called without an active exception"), which
    torchrun reports as the whole run failing after its work was written."""
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()


# ------------------------------------------------------------------------------------- loading


def load_model(path: str, device: torch.device, dtype: str = "auto") -> tuple[Any, Any]:
    """A causal LM and its tokenizer from a Hugging Face folder, or from a .gguf file (dequantized by
    transformers' GGUF loader; needs the gguf package)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    p = Path(path)
    kw: dict[str, Any] = {}
    if dtype != "auto":
        kw["dtype"] = getattr(torch, dtype)
    elif device.type == "cuda" and torch.cuda.is_bf16_supported():
        kw["dtype"] = torch.bfloat16
    else:
        kw["dtype"] = torch.float32
    if p.suffix == ".gguf":
        tok = AutoTokenizer.from_pretrained(str(p.parent), gguf_file=p.name)
        model = AutoModelForCausalLM.from_pretrained(str(p.parent), gguf_file=p.name, **kw)
        q = getattr(model, "hf_quantizer", None)
        if q is not None and not getattr(q, "packed_modules", None):
            # every tensor was dequantized to a plain dtype: only GGUF's marker is left, and it makes
            # trainers refuse the model ("purely quantized") and save_pretrained refuse to write it
            q.remove_quantization_config(model)
            model.config._is_quantized = False
    else:
        if not (p / "config.json").exists():
            raise FileNotFoundError(f"{p}: not a Hugging Face model folder (no config.json) nor a .gguf file")
        tok = AutoTokenizer.from_pretrained(str(p))
        model = AutoModelForCausalLM.from_pretrained(str(p), **kw)
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    return model.to(device), tok


def unwrap(model: Any) -> Any:
    """The module inside a DistributedDataParallel wrapper (the model itself otherwise)."""
    return model.module if isinstance(model, torch.nn.parallel.DistributedDataParallel) else model


#: Where save_checkpoint keeps a LoRA run's PEFT adapter, inside the checkpoint folder.
ADAPTER_DIR = "adapter"


def save_checkpoint(model: Any, tok: Any, out: str, meta: dict[str, Any]) -> None:
    """A Hugging Face folder (LoRA merged into the weights, so `--agent hf:DIR` loads it plainly).
    A LoRA run also keeps its PEFT adapter unmerged in DIR/adapter/, and rmsweb-trainer.json names
    it with the base model the run loaded (`meta["model"]`): `export-gguf` turns that pair into a
    llama.cpp adapter served over the base GGUF, much smaller and faster than a merged re-export."""
    m = unwrap(model)
    Path(out).mkdir(parents=True, exist_ok=True)
    if hasattr(m, "merge_and_unload"):
        # the unmerged adapter, as PEFT writes it (adapter_config.json + adapter_model.safetensors)
        m.save_pretrained(str(Path(out, ADAPTER_DIR)))
        base = meta.get("model")
        if base and Path(base).exists():  # absolute, so the record holds wherever the folder moves
            base = str(Path(base).resolve())
        meta = {**meta, "adapter": {"dir": ADAPTER_DIR, "base": base}}
        m = copy.deepcopy(m).merge_and_unload()
    m.save_pretrained(out)
    tok.save_pretrained(out)
    Path(out, "rmsweb-trainer.json").write_text(json.dumps(meta, indent=2) + "\n")


# --------------------------------------------------------------------------------------- prompts


def messages(chat: Chat, with_reply: bool) -> list[dict[str, str]]:
    """The chat as role/content messages (the reply as the assistant's turn when with_reply)."""
    msgs = []
    if chat.system:
        msgs.append({"role": "system", "content": chat.system})
    msgs.append({"role": "user", "content": chat.user})
    if with_reply:
        msgs.append({"role": "assistant", "content": chat.assistant or ""})
    return msgs


def _ids(x: Any) -> list[int]:
    if isinstance(x, dict) or hasattr(x, "input_ids"):
        x = x["input_ids"]
    return list(x)


def lm_text_ids(tok: Any, text: str, max_tokens: int) -> list[int]:
    """A plain prompt of the lm layout as the student sees it: the tokenizer's special tokens (BOS
    for Gemma, as llama.cpp adds it from the GGUF) + the text, tokenized alone: the reply's tokens
    then start fresh after it, as they do when the model continues the prompt at inference (Gemma
    tokenizes "Action: " + '{"' jointly as '▁{"', alone as '▁' then '{"'). Over max_tokens, the
    BOS is kept and the text's head dropped (the renderer's budget keeps prompts far below it)."""
    ids = _ids(tok(text, add_special_tokens=True))
    if len(ids) <= max_tokens:
        return ids
    bos = tok.bos_token_id
    head = [bos] if bos is not None and ids and ids[0] == bos else []
    return head + ids[len(ids) - (max_tokens - len(head)) :]


def prompt_ids(tok: Any, chat: Chat, max_tokens: int) -> list[int]:
    """The prompt as the model sees it: the tokenizer's chat template with the generation prompt
    (or a plain role-tagged layout for tokenizers without one), left-truncated to max_tokens; a
    plain prompt of the lm layout (`chat.text`) as `lm_text_ids` tokenizes it."""
    if chat.is_lm:
        return lm_text_ids(tok, chat.text or "", max_tokens)
    if tok.chat_template:
        ids = _ids(tok.apply_chat_template(messages(chat, False), add_generation_prompt=True, tokenize=True))
    else:
        text = (f"System: {chat.system}\n" if chat.system else "") + f"User: {chat.user}\nAssistant: "
        ids = tok(text, add_special_tokens=True)["input_ids"]
    # keep the end (page and generation prompt); the head is the system prompt, repeated every step
    return ids[-max_tokens:]


def completion_ids(tok: Any, chat: Chat, reply: str) -> list[int]:
    """The reply's tokens as the template closes an assistant turn (so the model learns to stop); in
    the lm layout the reply's own tokens + EOS, where the student stops (the reply holds no line
    break, the other stop LmAgent sends)."""
    if chat.is_lm:
        return _ids(tok(reply, add_special_tokens=False)) + [tok.eos_token_id]
    c = Chat(chat.system, chat.user, reply)
    if tok.chat_template:
        head = _ids(tok.apply_chat_template(messages(c, False), add_generation_prompt=True, tokenize=True))
        full = _ids(tok.apply_chat_template(messages(c, True), tokenize=True))
        if full[: len(head)] == head and len(full) > len(head):
            return full[len(head) :]
    return tok(reply, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]


def stop_ids(model: Any, tok: Any) -> set[int]:
    ids = {tok.eos_token_id}
    gen = getattr(unwrap(model), "generation_config", None)
    eos = getattr(gen, "eos_token_id", None)
    if isinstance(eos, int):
        ids.add(eos)
    elif isinstance(eos, (list, tuple)):
        ids.update(eos)
    return {i for i in ids if i is not None}


# ------------------------------------------------------------------------------------- sampling


@torch.no_grad()
def sample(
    model: Any,
    prompt: list[int],
    n: int,
    *,
    temperature: float,
    max_new_tokens: int,
    stops: set[int],
    generator: torch.Generator,
    device: torch.device,
) -> list[list[int]]:
    """n completions of one prompt, drawn from softmax(logits / temperature) with the given seeded
    generator (no top-k/top-p: the policy's own distribution at temperature 1). A completion ends
    with its first stop token, which it includes."""
    m = unwrap(model)
    was_training = m.training
    m.eval()
    ids = torch.tensor([prompt] * n, device=device)
    out = m(input_ids=ids, use_cache=True, logits_to_keep=1)
    past = out.past_key_values
    logits = out.logits[:, -1, :]
    done = torch.zeros(n, dtype=torch.bool, device=device)
    gen: list[torch.Tensor] = []
    stop_t = torch.tensor(sorted(stops), device=device)
    for _ in range(max_new_tokens):
        probs = torch.softmax(logits.float() / temperature, dim=-1)
        nxt = torch.multinomial(probs.cpu(), 1, generator=generator).squeeze(1).to(device)
        nxt = torch.where(done, stop_t[0], nxt)
        gen.append(nxt)
        done = done | torch.isin(nxt, stop_t)
        if bool(done.all()):
            break
        out = m(input_ids=nxt[:, None], past_key_values=past, use_cache=True, logits_to_keep=1)
        past = out.past_key_values
        logits = out.logits[:, -1, :]
    m.train(was_training)
    rows = torch.stack(gen, 1).tolist() if gen else [[] for _ in range(n)]
    completions = []
    for r in rows:
        cut = next((i + 1 for i, t in enumerate(r) if t in stops), len(r))
        completions.append(r[:cut])
    return completions


# -------------------------------------------------------------------------------- log-probs, KL


@dataclass
class Batch:
    """Prompt + completion rows, right-padded. `positions` pick the logits that predict each
    completion token; `mask` marks real completion tokens."""

    input_ids: torch.Tensor
    attention: torch.Tensor
    targets: torch.Tensor  # [B, Lc]
    mask: torch.Tensor  # [B, Lc] float
    starts: list[int]

    @property
    def tokens(self) -> int:
        return int(self.mask.sum().item())


def make_batch(rows: list[tuple[list[int], list[int]]], pad: int, device: torch.device) -> Batch:
    lc = max(1, max(len(c) for _, c in rows))
    length = max(len(p) + len(c) for p, c in rows)
    ids = torch.full((len(rows), length), pad, dtype=torch.long)
    att = torch.zeros((len(rows), length), dtype=torch.long)
    tgt = torch.full((len(rows), lc), pad, dtype=torch.long)
    mask = torch.zeros((len(rows), lc))
    starts = []
    for i, (p, c) in enumerate(rows):
        seq = p + c
        ids[i, : len(seq)] = torch.tensor(seq)
        att[i, : len(seq)] = 1
        tgt[i, : len(c)] = torch.tensor(c, dtype=torch.long) if c else tgt[i, :0]
        mask[i, : len(c)] = 1
        starts.append(len(p))
    return Batch(ids.to(device), att.to(device), tgt.to(device), mask.to(device), starts)


def completion_logits(model: Any, b: Batch) -> torch.Tensor:
    """[B, Lc, V] logits that predict each completion token (teacher forcing)."""
    length = b.input_ids.shape[1]
    # logits only from the position before the earliest completion: the output layer of a 262k-token
    # vocabulary over the whole prompt would cost more than the body
    first = max(0, min(b.starts) - 1)
    logits = model(input_ids=b.input_ids, attention_mask=b.attention, logits_to_keep=length - first).logits
    lc = b.targets.shape[1]
    idx = torch.tensor(b.starts, device=logits.device)[:, None] - 1 + torch.arange(lc, device=logits.device)[None]
    idx = idx.clamp(first, length - 1) - first
    return torch.gather(logits, 1, idx[:, :, None].expand(-1, -1, logits.shape[-1])).float()


def token_logprobs(logits: torch.Tensor, b: Batch) -> torch.Tensor:
    """[B, Lc] log-prob of each completion token (0 at padding)."""
    lp = torch.gather(F.log_softmax(logits, -1), 2, b.targets[:, :, None]).squeeze(2)
    return lp * b.mask


def seq_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """[B, L] -> [B]: the mean over each row's real tokens (GRPO's 1/|o| sum_t)."""
    return (x * mask).sum(1) / mask.sum(1).clamp(min=1)


def exact_kl(logits: torch.Tensor, ref_logits: torch.Tensor) -> torch.Tensor:
    """[B, Lc] exact KL(current || reference) of the next-token distribution at each position of
    the teacher-forced completion: no sampling noise, 0 with zero gradient when the two agree."""
    lp = F.log_softmax(logits, -1)
    lq = F.log_softmax(ref_logits, -1)
    return (lp.exp() * (lp - lq)).sum(-1)


# -------------------------------------------------------------------------------------- metrics

#: The stable metric names of src/rl/metrics.ts (the viewer plots them, the ablation table reads them).
METRIC_NAMES = [
    "charts/mean_reward", "charts/contrast_gate_pass", "charts/competence_gate_pass", "charts/salvage_share",
    "charts/refill_rounds", "charts/groups_trained", "charts/zero_variance_share", "charts/clip_fraction",
    "charts/kl_ref", "charts/rollouts_sampled", "charts/rollouts_total", "charts/unrepresentable_truth",
    "losses/policy", "losses/salvage_ce", "losses/kl", "losses/total",
]  # fmt: skip


class MetricsLog:
    """One JSON object per line: {"event": "step", ...metrics} per step and a final {"event": "done"}.
    The rmsweb CLI tails this file to stream progress and copies the steps into the run store."""

    def __init__(self, path: str | None, dist: Dist):
        self.f = open(path, "a", encoding="utf-8") if (path and dist.main) else None  # noqa: SIM115
        self.started = time.time()

    def write(self, event: str, **fields: Any) -> None:
        if self.f is None:
            return
        rec = {"event": event, "time": round(time.time() - self.started, 3), **fields}
        self.f.write(json.dumps(rec, allow_nan=False, default=_finite) + "\n")
        self.f.flush()

    def close(self) -> None:
        if self.f:
            self.f.close()


def _finite(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return x.item()
    raise TypeError(f"not JSON serializable: {type(x)}")
