"""Supervised fine-tuning, the baseline every RL run starts from, on TRL's SFTTrainer: the loss is
on the assistant reply of each TRL row (`rmsweb export sft --format trl`) only, given its system and
user messages (TRL's `completion_only_loss` over a prompt-completion dataset).

rmsweb tokenizes the rows itself, exactly as the RL trainer tokenizes a prompt and its reply (the
chat template's generation prompt, the prompt left-truncated to maxPromptTokens so the page and the
generation prompt survive), and hands TRL `input_ids` + `completion_mask`; TRL masks the prompt out
of the labels, batches, accumulates, shards (DDP, FSDP, DeepSpeed through `accelerate launch`) and
steps. The loss of a batch is the mean over its rows of each reply's mean token NLL - the reduction
of Salvage-DS's salvage term, so a salvaged state pulls on the weights exactly as SFT on its ground
truth would - where TRL's own `loss_type="nll"` would average over all the batch's tokens (long
replies would then weigh more); `RmswebSFTTrainer.compute_loss` is that one difference.
"""

from __future__ import annotations

import math
import random
import sys
from contextlib import nullcontext
from typing import Any

import torch
import torch.nn.functional as F

from .data import Chat
from .lm import Dist, MetricsLog, completion_ids, prompt_ids
from .options import defaults
from .prefix_cache import FrozenPrefix, layer_count, lora_layer_fields, lora_targets, prefix_unsupported

# ================================================================================== options

#: epochs, batchSize, lr, seed, valFrac from src/rl/options.json (the tfjs student's `train sft`
#: defaults); plus the torch section (maxPromptTokens, lora, ..., microBatch).
SFT_DEFAULTS = defaults("sft")

#: How each rmsweb option (and `python -m rmsweb_trainer sft` flag) lands on TRL's SFTConfig or
#: peft's LoraConfig; `rmsweb train sft --help` prints the same table.
SFT_CONFIG_FIELDS = {
    "epochs": "num_train_epochs",
    "batchSize": "per_device_train_batch_size x gradient_accumulation_steps (rows per optimizer step, per process)",
    "microBatch": "per_device_train_batch_size (rows per forward pass; the largest divisor of batchSize <= it)",
    "lr": "learning_rate (optim adamw_torch, weight_decay 0, lr_scheduler_type constant: plain Adam)",
    "seed": "seed and data_seed (also the train/validation split)",
    "valFrac": "the eval_dataset's share of the rows (eval_strategy epoch)",
    "maxPromptTokens": "max_length None: the prompt is left-truncated before TRL sees it",
    "lora": "peft_config (LoraConfig on the attention and MLP projections)",
    "loraRank": "LoraConfig.r",
    "loraAlpha": "LoraConfig.lora_alpha",
    "loraDropout": "LoraConfig.lora_dropout",
    "loraLayers": "LoraConfig.layers_to_transform (the top N decoder layers; 0: all), the frozen layers below cached per row",
    "gradientCheckpointing": "gradient_checkpointing (off by default: a second forward pass per micro-batch)",
}


def micro_split(batch: int, micro: int) -> tuple[int, int]:
    """(per_device_train_batch_size, gradient_accumulation_steps) whose product is `batch`: the
    largest micro-batch <= `micro` that divides it (0 or >= batch: one pass)."""
    if micro <= 0 or micro >= batch:
        return batch, 1
    m = max(d for d in range(1, micro + 1) if batch % d == 0)
    return m, batch // m


# ================================================================================== the data


def encode(tok: Any, chats: list[Chat], max_prompt_tokens: int) -> list[tuple[list[int], list[int]]]:
    """(prompt ids, reply ids) of each chat: the RL trainer's tokenization of a prompt and its reply."""
    return [(prompt_ids(tok, c, max_prompt_tokens), completion_ids(tok, c, c.assistant or "")) for c in chats]


def sft_rows(pairs: list[tuple[list[int], list[int]]]) -> list[dict[str, list[int]]]:
    """TRL's tokenized prompt-completion rows: the sequence and which of its tokens are the reply."""
    return [{"input_ids": p + c, "completion_mask": [0] * len(p) + [1] * len(c)} for p, c in pairs]


def split(pairs: list[Any], seed: int, val_frac: float) -> tuple[list[Any], list[Any]]:
    """(train, validation): a seeded shuffle, the first valFrac of it held out (none for one row)."""
    order = list(range(len(pairs)))
    random.Random(seed).shuffle(order)
    n_val = int(len(pairs) * val_frac) if len(pairs) > 1 else 0
    return [pairs[i] for i in order[n_val:]], [pairs[i] for i in order[:n_val]]


# ================================================================================== the loss


def reply_nll(logits: torch.Tensor, labels: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """([B] mean NLL of each row's reply tokens, [B] their count). `labels` are TRL's: the input ids
    with -100 where no loss applies; position t's logits predict label t+1."""
    target = labels[:, 1:]
    mask = target != -100
    rows = mask.nonzero()[:, 0]
    # only the reply positions go through the softmax: a 4k-token page x 128k vocabulary would not fit
    nll = F.cross_entropy(logits[:, :-1][mask].float(), target[mask], reduction="none")
    count = mask.sum(1)
    total = torch.zeros(labels.shape[0], device=logits.device, dtype=nll.dtype).index_add(0, rows, nll)
    return total / count.clamp(min=1), count


def reply_window(labels: torch.Tensor) -> int:
    """The first position whose logits predict a labelled token (the one before the earliest reply
    token of the batch); logits from there to the end are all the loss reads."""
    labelled = (labels != -100).any(0).nonzero()
    return max(0, int(labelled[0]) - 1) if labelled.numel() else labels.shape[1] - 1


def _trainer_class() -> type:
    from trl import SFTTrainer

    class RmswebSFTTrainer(SFTTrainer):
        """SFTTrainer with rmsweb's reduction: the mean over rows of each reply's mean token NLL."""

        # the mean over a micro-batch's rows; the Trainer divides it by the accumulation steps
        loss_is_scaled_for_ga = False

        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            self.step_loss = 0.0
            self.step_tokens = 0
            #: a FrozenPrefix when LoRA trains only the top layers (train_sft sets it)
            self.prefix: Any = None

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            labels = inputs["labels"]
            start = reply_window(labels)
            # Only the positions that predict a reply token need logits: with Gemma 3's 262k-token
            # vocabulary the output layer over a whole 700-token prompt costs more than the body.
            with self.prefix.active(inputs["attention_mask"]) if self.prefix else nullcontext():
                out = model(
                    input_ids=inputs["input_ids"],
                    attention_mask=inputs["attention_mask"],
                    use_cache=False,
                    logits_to_keep=labels.shape[1] - start,
                )
            nll, _ = reply_nll(out.logits, labels[:, start:])
            loss = nll.mean()
            if model.training:
                steps = getattr(self, "current_gradient_accumulation_steps", self.args.gradient_accumulation_steps)
                self.step_loss += float(loss.detach()) / steps
                self.step_tokens += int(inputs["attention_mask"].sum())
            return (loss, out) if return_outputs else loss

    return RmswebSFTTrainer


def lora_config(model: Any, o: dict[str, Any]) -> Any:
    """peft's LoraConfig on the model's attention and MLP projections (what `--lora` trains)."""
    from peft import LoraConfig

    return LoraConfig(
        r=o["loraRank"],
        lora_alpha=o["loraAlpha"],
        lora_dropout=o["loraDropout"],
        target_modules=lora_targets(model),
        task_type="CAUSAL_LM",
        **lora_layer_fields(model, o["loraLayers"]),
    )


def sft_config(
    o: dict[str, Any], *, has_val: bool, cpu: bool, work_dir: str, bf16: bool = False, save_steps: int = 0
) -> Any:
    """TRL's SFTConfig for rmsweb's options (the mapping is SFT_CONFIG_FIELDS); `save_steps` > 0
    keeps the latest resumable checkpoint (weights or adapter, optimizer, RNG) in `work_dir`."""
    from trl import SFTConfig

    per_device, accumulate = micro_split(o["batchSize"], o["microBatch"])
    return SFTConfig(
        output_dir=work_dir,
        num_train_epochs=o["epochs"],
        per_device_train_batch_size=per_device,
        per_device_eval_batch_size=per_device,
        gradient_accumulation_steps=accumulate,
        learning_rate=o["lr"],
        optim="adamw_torch",
        weight_decay=0.0,
        lr_scheduler_type="constant",
        warmup_steps=0,
        max_grad_norm=0.0,  # the loop it replaces did not clip
        seed=o["seed"],
        data_seed=o["seed"],
        completion_only_loss=True,
        max_length=None,
        eval_strategy="epoch" if has_val else "no",
        **(
            {"save_strategy": "steps", "save_steps": save_steps, "save_total_limit": 1}
            if save_steps > 0
            else {"save_strategy": "no"}
        ),
        logging_strategy="no",
        report_to="none",
        disable_tqdm=True,
        # the model trains in the dtype it was loaded in (bf16 on GPUs); bf16 here only tells
        # accelerate (and DeepSpeed, FSDP) so, as the configs in trainer/configs/ say too
        bf16=bf16,
        fp16=False,
        gradient_checkpointing=o["gradientCheckpointing"],
        use_cpu=cpu,
        dataloader_drop_last=False,
        remove_unused_columns=True,
    )


def build_trainer(
    model: Any,
    tok: Any,
    train: list[Any],
    val: list[Any],
    o: dict[str, Any],
    *,
    cpu: bool,
    work_dir: str,
    save_steps: int = 0,
) -> Any:
    """An RmswebSFTTrainer over (prompt ids, reply ids) pairs."""
    from datasets import Dataset

    cls = _trainer_class()
    return cls(
        model=model,
        args=sft_config(
            o,
            has_val=bool(val),
            cpu=cpu,
            work_dir=work_dir,
            bf16=not cpu and model.dtype == torch.bfloat16,
            save_steps=save_steps,
        ),
        train_dataset=Dataset.from_list(sft_rows(train)),
        eval_dataset=Dataset.from_list(sft_rows(val)) if val else None,
        processing_class=tok,
        peft_config=lora_config(model, o) if o["lora"] else None,
    )


# =============================================================================== training


def _metrics_callback(
    trainer: Any,
    log: MetricsLog,
    n_train: int,
    n_val: int,
    epochs: list[dict[str, Any]],
    on_metrics,
    losses_file: str | None = None,
    resumed: bool = False,
):
    import json
    import os

    from transformers import TrainerCallback

    class Metrics(TrainerCallback):
        """Writes the events the rmsweb CLI reads: {"event": "step"} per optimizer step and
        {"event": "epoch"} with the validation loss per epoch. With checkpoints, each save also
        writes the epoch's step losses so far, so a resumed run's epoch loss covers the whole epoch."""

        def __init__(self):
            self.losses: list[float] = []
            self.epoch = 1
            if resumed and losses_file and os.path.exists(losses_file):
                with open(losses_file, encoding="utf-8") as f:
                    saved = json.load(f)
                self.losses, self.epoch = saved["losses"], saved["epoch"]
                epochs.extend(saved["epochs"])

        def on_save(self, args, state, control, **kw):
            if losses_file and state.is_world_process_zero:
                with open(losses_file + ".tmp", "w", encoding="utf-8") as f:
                    json.dump(
                        {"step": state.global_step, "epoch": self.epoch, "losses": self.losses, "epochs": epochs}, f
                    )
                os.replace(losses_file + ".tmp", losses_file)

        def on_step_end(self, args, state, control, **kw):
            loss, tokens = trainer.step_loss, trainer.step_tokens
            trainer.step_loss, trainer.step_tokens = 0.0, 0
            if not math.isfinite(loss):
                raise FloatingPointError(f"non-finite loss {loss} at step {state.global_step} (diverged: lower --lr)")
            self.losses.append(loss)
            log.write("step", step=state.global_step, epoch=self.epoch, **{"losses/sft": loss}, tokens=tokens)

        def _epoch(self, val: float | None) -> None:
            m = {
                "epoch": self.epoch,
                "losses/train": sum(self.losses) / max(1, len(self.losses)),
                "losses/val": val,
                "train": n_train,
                "val": n_val,
            }
            epochs.append(m)
            log.write("epoch", **m)
            if on_metrics:
                on_metrics(m)
            self.losses, self.epoch = [], self.epoch + 1

        def on_epoch_end(self, args, state, control, **kw):
            if not n_val:
                self._epoch(None)

        def on_evaluate(self, args, state, control, metrics=None, **kw):
            self._epoch(float((metrics or {})["eval_loss"]))

    return Metrics()


def train_sft(
    model: Any,
    tok: Any,
    chats: list[Chat],
    *,
    metrics_path: str | None = None,
    on_metrics=None,
    dist: Dist | None = None,
    work_dir: str | None = None,
    checkpoint_dir: str | None = None,
    save_steps: int = 0,
    fingerprint: dict[str, Any] | None = None,
    **options: Any,
) -> tuple[Any, list[dict[str, Any]]]:
    """Trains `model` with TRL's SFTTrainer; logs {"event": "step"} per optimizer step and
    {"event": "epoch"} with the validation loss per epoch. Returns (the trainer, per-epoch metrics).
    Its `model` is the trained one (a peft model with --lora); `save_sft` writes the checkpoint.

    With `checkpoint_dir` and `save_steps`, the latest checkpoint is kept there every `save_steps`
    optimizer steps, and a run started again with the same `fingerprint` (model, data, options)
    resumes from it (the Trainer restores the weights or adapter, Adam's state, the RNGs and the
    position in the data order); a checkpoint of another fingerprint is discarded."""
    import shutil
    import tempfile

    o = defaults("sft", **options)
    dist = dist or Dist(device=next(model.parameters()).device)
    # same seed, data and model give the same run: LoRA's init, the split and the data order
    torch.manual_seed(o["seed"])
    train, val = split(encode(tok, chats, o["maxPromptTokens"]), o["seed"], o["valFrac"])
    keep = bool(checkpoint_dir) and save_steps > 0
    if keep:
        work = checkpoint_dir
        resume, losses_file = resume_point(checkpoint_dir, {**(fingerprint or {}), "options": o}, dist)
    else:
        resume, losses_file = None, None
        # TRL wants an output_dir for checkpoints; this run saves none mid-run, so a scratch folder
        work = work_dir or tempfile.mkdtemp(prefix="rmsweb-sft-")
    trainer = build_trainer(
        model,
        tok,
        train,
        val,
        o,
        cpu=dist.device.type == "cpu",
        work_dir=work,
        save_steps=save_steps if keep else 0,
    )
    trainer.prefix = frozen_prefix(trainer, o, dist)
    log = MetricsLog(metrics_path, dist)
    epochs: list[dict[str, Any]] = []
    trainer.add_callback(
        _metrics_callback(trainer, log, len(train), len(val), epochs, on_metrics, losses_file, resumed=bool(resume))
    )
    try:
        trainer.train(resume_from_checkpoint=resume)
    finally:
        log.close()
        if trainer.prefix and dist.main:
            st = trainer.prefix.stats()
            print(
                f"frozen layers: {st['computed']} rows computed, {st['reused']} served from the cache "
                f"({st['bytes'] / 2**20:.0f} MiB)",
                file=sys.stderr,
            )
        if work_dir is None and not keep:
            shutil.rmtree(work, ignore_errors=True)
    return trainer, epochs


def frozen_prefix(trainer: Any, o: dict[str, Any], dist: Dist) -> FrozenPrefix | None:
    """The per-row cache of the layers LoRA leaves frozen (`loraLayers` > 0), where it is exact:
    one process (a wrapped or sharded model is not swapped into) and no gradient checkpointing
    (which needs the embeddings' output to require a gradient)."""
    if not o["lora"] or o["loraLayers"] <= 0:
        return None
    model = trainer.model
    why = prefix_unsupported(model, o["loraLayers"])
    if why is None and o["gradientCheckpointing"]:
        why = "gradient checkpointing is on"
    if why is None and (dist.world > 1 or trainer.is_fsdp_enabled or trainer.is_deepspeed_enabled):
        why = "the model is trained by several processes"
    n = layer_count(model)
    if why is not None:
        if dist.main:
            print(f"LoRA on the top {o['loraLayers']} of {n} layers; frozen layers not cached: {why}", file=sys.stderr)
        return None
    start = n - o["loraLayers"]
    if dist.main:
        print(f"LoRA on layers {start}-{n - 1}; layers 0-{start - 1} computed once per row and cached", file=sys.stderr)
    return FrozenPrefix(model, start)


def resume_point(checkpoint_dir: str, fingerprint: dict[str, Any], dist: Dist) -> tuple[str | None, str]:
    """(the latest checkpoint to resume from or None, the file the epoch losses are kept in). A
    folder made for another model, data or options is emptied first: resuming it would mix runs."""
    import json
    import shutil
    import sys
    from pathlib import Path

    from transformers.trainer_utils import get_last_checkpoint

    root = Path(checkpoint_dir)
    stamp = root / "rmsweb-resume.json"
    want = json.dumps(fingerprint, sort_keys=True, default=str)
    if dist.main:
        if root.exists() and (not stamp.exists() or stamp.read_text(encoding="utf-8") != want):
            if any(root.iterdir()):
                print(
                    f"{checkpoint_dir}: checkpoints of another run (model, data or options differ): starting over",
                    file=sys.stderr,
                )
            shutil.rmtree(root)
        root.mkdir(parents=True, exist_ok=True)
        stamp.write_text(want, encoding="utf-8")
    last = get_last_checkpoint(str(root)) if root.exists() else None
    if last and dist.main:
        print(f"resuming from {last}", file=sys.stderr)
    return last, str(root / "epoch-losses.json")


def save_sft(trainer: Any, tok: Any, out: str, meta: dict[str, Any]) -> None:
    """The Hugging Face checkpoint --out holds: config.json, model.safetensors, the tokenizer and
    rmsweb-trainer.json (LoRA merged into the weights, so `--agent hf:DIR` loads it plainly).
    Sharded runs (FSDP, ZeRO-3) save through the Trainer, which gathers the shards."""
    import json
    from pathlib import Path

    from .lm import save_checkpoint

    sharded = trainer.is_fsdp_enabled or (
        trainer.is_deepspeed_enabled and trainer.accelerator.state.deepspeed_plugin.zero_stage == 3
    )
    if sharded:
        trainer.save_model(out)
        if trainer.accelerator.is_main_process:
            Path(out, "rmsweb-trainer.json").write_text(json.dumps(meta, indent=2) + "\n")
    elif trainer.accelerator.is_main_process:
        save_checkpoint(trainer.model, tok, out, meta)
    trainer.accelerator.wait_for_everyone()
