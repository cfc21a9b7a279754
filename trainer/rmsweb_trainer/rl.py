"""The RL trainers as a thin layer on TRL's GRPOTrainer (trl==1.16.0, pinned in requirements.txt).

TRL samples the groups, scores them with rmsweb's rewards (TRL reward functions reading the gold
action and the state's element table from dataset columns), computes group-relative advantages and
the clipped-surrogate loss. This module adds what rmsweb needs around that:

 - `rl_dataset`: critical states as a `datasets.Dataset` (prompt, truth, observation, gold_ids);
 - `reward_func`: a rmsweb reward (polarized, exact, textsim or any `RewardFn`) as a TRL reward function;
 - `grpo_config_fields`: rmsweb's option names mapped onto GRPOConfig fields (`RL_OPTION_FIELDS` says
   which field each option sets, for `--help`);
 - `RmswebGRPOTrainer`: GRPOTrainer plus a frozen reference when TRL would not build one (the
   charts/kl_ref diagnostic, Salvage-DS's brake), left-truncated prompts, and the metrics JSONL the
   rmsweb CLI reads (the event format and metric names of src/rl/metrics.ts);
 - `train_rl`: one run, from options to a trained model. GRPO and DAPO are this class with TRL's own
   loss types; Salvage-DS (salvage_ds.py) subclasses it.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from trl import GRPOConfig, GRPOTrainer
from trl.trainer.utils import RepeatSampler

from .data import RlExample, truth_completion
from .lm import (
    METRIC_NAMES,
    Dist,
    MetricsLog,
    completion_ids,
    completion_logits,
    exact_kl,
    lm_text_ids,
    make_batch,
    messages,
    seq_mean,
)
from .options import defaults
from .reward import RewardFn, parse_completion, parse_lm_completion, reward_by_name
from .rollouts import competence_gate_t, contrast_gate_t

# ===================================================================================== data, reward


def rl_dataset(tok: Any, examples: list[RlExample]) -> Any:
    """One row per critical state: the prompt (chat messages, or plain text for a tokenizer without a
    chat template, or the lm layout's own plain text: TRL's standard, non-conversational format), the
    gold action and the observation as JSON (reward functions get them as keyword arguments), the
    layout (which parser reads a reply) and the gold reply's token ids (the salvage anchor's target,
    kl_ref's probe)."""
    from datasets import Dataset

    rows = []
    for ex in examples:
        if ex.chat.is_lm:
            prompt: Any = ex.chat.text
        elif tok.chat_template:
            prompt = messages(ex.chat, with_reply=False)
        else:
            prompt = (f"System: {ex.chat.system}\n" if ex.chat.system else "") + f"User: {ex.chat.user}\nAssistant: "
        rows.append(
            {
                "prompt": prompt,
                "truth": json.dumps(ex.truth),
                "observation": json.dumps(ex.observation),
                "gold_ids": completion_ids(tok, ex.chat, truth_completion(ex)),
                "state_id": ex.id or "",
                "layout": "lm" if ex.chat.is_lm else "chat",
            }
        )
    return Dataset.from_list(rows)


def completion_text(c: Any) -> str:
    """A TRL completion's text: a string, or the content of a conversational completion's last message."""
    if isinstance(c, str):
        return c
    content = c[-1]["content"]
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content


def reward_func(reward: RewardFn | str) -> Callable[..., list[float]]:
    """A rmsweb reward as a TRL reward function: each completion is parsed into its first action and
    scored against the row's gold action (column `truth`) on its observation (column `observation`)."""
    fn = reward_by_name(reward) if isinstance(reward, str) else reward
    name = reward if isinstance(reward, str) else getattr(reward, "__name__", "reward")

    def score(
        completions: list[Any], truth: list[str], observation: list[str], layout: list[str] | None = None, **_: Any
    ) -> list[float]:
        # an lm reply is read as LmAgent reads it at inference (the first balanced JSON object)
        parsers = [parse_lm_completion if x == "lm" else parse_completion for x in layout or ["chat"] * len(truth)]
        return [
            float(fn(parse(completion_text(c)), json.loads(t), json.loads(o)))
            for c, t, o, parse in zip(completions, truth, observation, parsers, strict=True)
        ]

    score.__name__ = name if name.isidentifier() else "reward"
    return score


# ================================================================================ options -> TRL

#: Which GRPOConfig field each rmsweb RL option sets (what `--help` prints). Options of one algorithm
#: only say so.
RL_OPTION_FIELDS: dict[str, str] = {
    "steps": "max_steps (= steps x updateEpochs: one TRL optimizer step per update epoch)",
    "batchSize": "generation_batch_size / num_generations (states per step, over all processes)",
    "groupSize": "num_generations",
    "microBatch": "per_device_train_batch_size (rows per forward pass; the rest is gradient_accumulation_steps = steps_per_generation)",
    "temperature": "temperature (top_p 1, top_k 0: the policy's own distribution)",
    "lr": "learning_rate (optim adamw_torch, weight_decay 0, lr_scheduler_type constant: plain Adam)",
    "maxGradNorm": "max_grad_norm",
    "gradientCheckpointing": "gradient_checkpointing (TRL's default is on; rmsweb's off: a second forward pass per micro-batch)",
    "clipEps": "epsilon (salvage-ds, grpo)",
    "clipLow": "epsilon (dapo)",
    "clipHigh": "epsilon_high (dapo: clip-higher)",
    "beta": "beta (k3 KL to the frozen reference, use_bias_correction_kl False as in DeepSeekMath; dapo: 0)",
    "updateEpochs": "num_iterations",
    "seed": "seed",
    "maxNewTokens": "max_completion_length",
    "maxPromptTokens": "prompts left-truncated to this many tokens (TRL has no prompt limit)",
    "lora, loraRank, loraAlpha, loraDropout": "peft_config = LoraConfig(r, lora_alpha, lora_dropout)",
    "algo": 'loss_type ("grpo" for salvage-ds and grpo, "dapo" for dapo), scale_rewards "group"',
    "vllm": "use_vllm = True, vllm_mode (colocate | server)",
    "betaBrake, contrastDelta, competenceTau, salvage": "salvage-ds only: applied by SalvageDSTrainer, not TRL",
    "maxRefills": "dapo: not used (TRL 1.16.0 has no dynamic sampling; zero-variance groups get zero advantage)",
}


def micro_split(rows: int, micro: int) -> tuple[int, int]:
    """(rows per forward pass, forward passes) for `rows` rows per process: the largest divisor of
    rows that is at most `micro` (0 = all rows at once), since TRL splits a generation batch evenly."""
    want = rows if micro <= 0 else min(micro, rows)
    size = max(d for d in range(1, want + 1) if rows % d == 0)
    return size, rows // size


def grpo_config_fields(o: dict[str, Any], algo: str = "salvage-ds", world: int = 1) -> dict[str, Any]:
    """The GRPOConfig keyword arguments that rmsweb's options `o` (a section of src/rl/options.json
    merged with its torch section, as `defaults(algo)` returns) stand for; see RL_OPTION_FIELDS."""
    rows = o["batchSize"] * o["groupSize"]
    if rows % world:
        raise ValueError(f"batchSize x groupSize ({rows}) must be divisible by the number of processes ({world})")
    micro, accum = micro_split(rows // world, o["microBatch"])
    dapo = algo == "dapo"
    return {
        "max_steps": o["steps"] * o["updateEpochs"],
        "per_device_train_batch_size": micro,
        "gradient_accumulation_steps": accum,
        "steps_per_generation": accum,
        "num_generations": o["groupSize"],
        "temperature": o["temperature"],
        "top_p": 1.0,
        "top_k": 0,
        "learning_rate": o["lr"],
        "optim": "adamw_torch",
        "weight_decay": 0.0,
        "lr_scheduler_type": "constant",
        "warmup_steps": 0,
        "max_grad_norm": o["maxGradNorm"],
        "num_iterations": o["updateEpochs"],
        "seed": o["seed"],
        "max_completion_length": o["maxNewTokens"],
        "loss_type": "dapo" if dapo else "grpo",
        "scale_rewards": "group",
        "epsilon": o["clipLow"] if dapo else o["clipEps"],
        "epsilon_high": o["clipHigh"] if dapo else None,
        "beta": 0.0 if dapo else o["beta"],
        # the k3 term as DeepSeekMath's GRPO and src/rl/*.ts have it; TRL 1.16 defaults to weighting
        # it by the (differentiable) ratio, which changes its gradient even on-policy
        "use_bias_correction_kl": False,
        "gradient_checkpointing": o["gradientCheckpointing"],
    }


def lora_config(o: dict[str, Any], model: Any) -> Any:
    """The LoRA adapters --lora trains: every attention and MLP projection the model has, in every
    decoder layer or the top `loraLayers` ones."""
    from peft import LoraConfig

    from .prefix_cache import lora_layer_fields, lora_targets

    layers = lora_layer_fields(model, o["loraLayers"])
    return LoraConfig(
        r=o["loraRank"],
        lora_alpha=o["loraAlpha"],
        lora_dropout=o["loraDropout"],
        # peft refuses layers_to_transform beside the "all-linear" shorthand: name the projections
        target_modules=lora_targets(model) if layers else "all-linear",
        task_type="CAUSAL_LM",
        **layers,
    )


def check_vllm(vllm: str | None, device: torch.device) -> None:
    """--vllm needs a GPU and the vllm package: refused up front (before anything is written)."""
    from .data import InputError

    if vllm is None:
        return
    if vllm not in ("colocate", "server"):
        raise InputError(f"expected colocate or server, got {vllm!r}", option="--vllm")
    if device.type != "cuda":
        raise InputError("vLLM generation needs a CUDA GPU; this run is on the CPU (drop --vllm)", option="--vllm")
    import importlib.util

    if importlib.util.find_spec("vllm") is None:
        raise InputError("the vllm package is not installed in the trainer's environment", option="--vllm")


# ==================================================================================== the trainer


class EpochSampler(RepeatSampler):
    """TRL's RepeatSampler, whose shuffle is the `epoch`-th permutation of its seed whatever came before.

    RepeatSampler draws each epoch's order from one generator that advances as epochs pass, and
    the Trainer does not replay the epochs a resumed run skips: a run resumed past an epoch
    boundary started the permutations over and trained on other states than an unbroken run.
    The Trainer calls set_epoch at each epoch's start; an unbroken run's order is unchanged."""

    def set_epoch(self, epoch: int) -> None:
        if not self.shuffle or self.seed is None:
            return  # an unseeded order cannot be replayed
        self.generator.manual_seed(self.seed)
        for _ in range(epoch):  # each epoch's __iter__ draws one permutation
            torch.randperm(self.num_samples, generator=self.generator)


class RmswebGRPOTrainer(GRPOTrainer):
    """GRPOTrainer with rmsweb's reference, prompt limit and metrics JSONL. Its loss is TRL's."""

    algo = "grpo"

    def __init__(
        self,
        *,
        model: Any,
        tok: Any,
        o: dict[str, Any],
        args: GRPOConfig,
        train_dataset: Any,
        reward: RewardFn | str,
        metrics_path: str | None = None,
        on_metrics: Callable[[dict[str, float]], None] | None = None,
        peft_config: Any = None,
    ):
        self.o = o
        # TRL builds its reference (beta > 0) by loading the policy's config path again, which an
        # in-memory or GGUF-loaded model does not have; and with beta = 0 it builds none, while kl_ref
        # and Salvage-DS's brake need one. So rmsweb copies the starting policy itself, before TRL
        # patches it, and hands TRL beta = 0 during construction. With LoRA the reference is the
        # policy with its adapters switched off, as in TRL.
        beta = args.beta
        ref = None if peft_config is not None else copy.deepcopy(model).eval().requires_grad_(False)
        args.beta = 0.0
        try:
            super().__init__(
                model=model,
                reward_funcs=[reward_func(reward)],
                args=args,
                train_dataset=train_dataset,
                processing_class=tok,
                peft_config=peft_config,
            )
        finally:
            args.beta = beta
        self.beta = beta
        if ref is not None:
            self.ref_model = self._prepare_reference(ref)
        from transformers import PrinterCallback

        self.remove_callback(PrinterCallback)  # stdout stays quiet: progress goes to the metrics JSONL
        self._max_prompt_tokens = o["maxPromptTokens"]
        # load_rl keeps a file to one layout, so the first row says it
        self._lm_layout = (
            "layout" in train_dataset.column_names and len(train_dataset) > 0 and train_dataset[0]["layout"] == "lm"
        )
        self._rmsweb_rewards: torch.Tensor | None = None
        self._charts: dict[str, float] = {}
        self._losses: dict[str, float] = {}
        self._generations = 0
        self.rmsweb_metrics: list[dict[str, float]] = []
        self._on_metrics = on_metrics
        self._log = MetricsLog(
            metrics_path, Dist(rank=self.accelerator.process_index, world=self.accelerator.num_processes)
        )

    def _get_train_sampler(self, dataset: Any = None) -> Any:
        s = super()._get_train_sampler(dataset)
        return EpochSampler(s.data_source, s.mini_repeat_count, s.batch_size, s.repeat_count, s.shuffle, s.seed)

    def _prepare_reference(self, ref: Any) -> Any:
        """What TRL does to the reference it builds: the fused log-prob head, dropout off, placement."""
        from trl.trainer import grpo_trainer as g

        g.add_fused_lm_head(ref, temperature=self.temperature, cast_lm_head_to_fp32=self.args.cast_lm_head_to_fp32)
        if self.args.disable_dropout:
            g.disable_dropout_in_model(ref)
        if self.is_deepspeed_enabled:
            return g.prepare_deepspeed(ref, self.accelerator)
        if self.is_fsdp_enabled:
            return g.prepare_fsdp(ref, self.accelerator)
        return self.accelerator.prepare_model(ref, evaluation_mode=True)

    @contextmanager
    def reference(self) -> Iterator[Any]:
        """The frozen starting policy: the copied reference, or the LoRA policy with adapters off."""
        if self.ref_model is not None:
            yield self.ref_model
            return
        from trl.trainer.utils import use_adapter

        m = self.accelerator.unwrap_model(self.model)
        with use_adapter(m, adapter_name=None):
            yield m

    # ------------------------------------------------------------------------- TRL's hooks

    def _tokenize_prompts(self, prompts: list):
        if self._lm_layout:
            # the lm layout's plain text, tokenized exactly as SFT and inference tokenize it
            ids = [lm_text_ids(self.processing_class, p, self._max_prompt_tokens) for p in prompts]
            return ids, None, {}
        prompt_ids, images, fields = super()._tokenize_prompts(prompts)
        # keep the end (page and generation prompt); the head is the system prompt, repeated every step
        return [list(ids)[-self._max_prompt_tokens :] for ids in prompt_ids], images, fields

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        # TRL returns the rewards of every process's completions (gathered): the gates need whole groups
        rewards = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._rmsweb_rewards = rewards
        return rewards

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        if not self.model.training:
            return out
        rewards = (self._rmsweb_rewards * self.reward_weights.to(self._rmsweb_rewards.device)).nansum(dim=1)
        groups = rewards.view(-1, self.num_generations)
        self._generations += 1
        self._charts = self._group_charts(groups)
        self._charts["charts/kl_ref"] = self._kl_ref(inputs, out)
        # generated tokens of the step's rollouts over every process: RL sampling's tokens/s (bench/)
        local = out["completion_mask"].sum().reshape(1).float()
        self._charts["charts/completion_tokens"] = float(self.accelerator.gather(local).sum())
        return self._route(inputs, out, groups)

    def _route(self, inputs: list[dict[str, Any]], out: dict[str, Any], groups: torch.Tensor) -> dict[str, Any]:
        """Where an algorithm changes TRL's scored batch (Salvage-DS's gates); GRPO and DAPO do not."""
        return out

    def _group_charts(self, groups: torch.Tensor) -> dict[str, float]:
        """The step's charts from every group's rewards (identical on every process)."""
        s = defaults("salvage-ds")  # GRPO and DAPO log the gates too, for the ablation table
        n = max(1, groups.shape[0])
        sampled = groups.numel()
        return {
            "charts/mean_reward": float(torch.nanmean(groups)),
            "charts/contrast_gate_pass": float(contrast_gate_t(groups, s["contrastDelta"]).sum()) / n,
            "charts/competence_gate_pass": float(competence_gate_t(groups, s["competenceTau"]).sum()) / n,
            "charts/zero_variance_share": float((groups.max(1).values == groups.min(1).values).sum()) / n,
            "charts/groups_trained": float(groups.shape[0]),
            "charts/rollouts_sampled": float(sampled),
            "charts/rollouts_total": float(sampled * self._generations),
        }

    def _group_heads(self, n_local: int) -> list[int]:
        """The local rows that open a group (global row index a multiple of G): one per group overall,
        even when a group is split across processes."""
        start = self.accelerator.process_index * n_local
        return [i for i in range(n_local) if (start + i) % self.num_generations == 0]

    def _gold_rows(self, inputs: list[dict[str, Any]], out: dict[str, Any], rows: list[int]) -> list[list[int]]:
        """(prompt + gold reply) of the given rows: the prompt as TRL tokenized it, without its padding."""
        pairs = []
        for i in rows:
            p = out["prompt_ids"][i][out["prompt_mask"][i].bool()].tolist()
            pairs.append((p, list(inputs[i]["gold_ids"])))
        return pairs

    @torch.no_grad()
    def _kl_ref(self, inputs: list[dict[str, Any]], out: dict[str, Any]) -> float:
        """charts/kl_ref: the exact teacher-forced KL(current || start) on the gold replies, per token,
        averaged over states (before the step's update)."""
        heads = self._group_heads(len(inputs))
        device = self.accelerator.device
        acc = torch.zeros(2, device=device)
        if heads:
            pad = self.processing_class.pad_token_id
            b = make_batch(self._gold_rows(inputs, out, heads), pad, device)
            m = self.accelerator.unwrap_model(self.model)
            was = m.training
            m.eval()
            cur = completion_logits(m, b)
            with self.reference() as ref:
                refl = completion_logits(ref, b)
            m.train(was)
            acc[0] = seq_mean(exact_kl(cur, refl), b.mask).sum()
            acc[1] = len(heads)
        acc = self.accelerator.reduce(acc, reduction="sum")
        return float(acc[0] / acc[1].clamp(min=1))

    def _get_per_token_logps_and_entropies(self, model, *args, **kwargs):
        logps, entropies, aux = super()._get_per_token_logps_and_entropies(model, *args, **kwargs)
        if torch.is_grad_enabled():  # the policy's pass inside _compute_loss (not sampling or the reference)
            self._last_logps = logps.detach()
        return logps, entropies, aux

    def _policy_parts(self, inputs: dict[str, Any], scale: float) -> float:
        """The beta-weighted k3 share of TRL's loss, aggregated as TRL's loss_type aggregates it, so
        losses/policy + losses/kl = losses/total exactly (grpo: per-reply means; dapo has beta 0)."""
        if self.beta == 0.0 or "ref_per_token_logps" not in inputs:
            return 0.0
        lp, ref = self._last_logps, inputs["ref_per_token_logps"]
        mask = inputs["completion_mask"] * inputs.get("tool_mask", 1)
        k3 = torch.exp(ref - lp) - (ref - lp) - 1
        per_row = (self.beta * k3 * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)
        return float(per_row.mean()) / self.current_gradient_accumulation_steps * scale

    def _add_losses(self, **parts: float) -> None:
        for k, v in parts.items():
            self._losses[k] = self._losses.get(k, 0.0) + v

    def _compute_loss(self, model, inputs):
        loss = super()._compute_loss(model, inputs)
        kl = self._policy_parts(inputs, 1.0)
        value = float(loss.detach())
        self._add_losses(**{"losses/total": value, "losses/policy": value - kl, "losses/kl": kl})
        return loss

    # ----------------------------------------------------------------------------- metrics

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        train_step = "loss" in logs and self.model.training
        clip = self._metrics["train"].get("clip_ratio/region_mean", [])
        super().log(logs, start_time)
        if not train_step:
            return
        step, rest = divmod(self.state.global_step, self.num_iterations)
        if rest:  # mid-way through a step's update epochs: the step is logged after its last epoch
            self._losses = {}
            return
        losses = torch.tensor([self._losses.get(k, 0.0) for k in LOSS_NAMES], device=self.accelerator.device)
        losses = self.accelerator.reduce(losses, reduction="mean")
        m: dict[str, float] = {"step": step, **{k: 0.0 for k in METRIC_NAMES}, **self._charts}
        m.update({k: float(v) for k, v in zip(LOSS_NAMES, losses.tolist())})
        m["charts/clip_fraction"] = sum(clip) / len(clip) if clip else 0.0
        self._losses = {}
        if not all(v == v and abs(v) != float("inf") for v in m.values()):
            raise FloatingPointError(f"non-finite metric at step {step}: {m} (diverged: lower --lr)")
        self.rmsweb_metrics.append(m)
        self._log.write("step", **m)
        if self._on_metrics:
            self._on_metrics(m)


LOSS_NAMES = ("losses/total", "losses/policy", "losses/salvage_ce", "losses/kl")


# ========================================================================================== runs


def build_trainer(
    trainer_cls: type[RmswebGRPOTrainer],
    model: Any,
    tok: Any,
    examples: list[RlExample],
    *,
    reward: RewardFn | str = "polarized",
    metrics_path: str | None = None,
    on_metrics: Callable[[dict[str, float]], None] | None = None,
    vllm: str | None = None,
    work_dir: str | None = None,
    save_steps: int = 0,
    **options: Any,
) -> RmswebGRPOTrainer:
    """A ready trainer of `trainer_cls`'s algorithm on `model` (trained in place) with rmsweb's
    options (`defaults(algo, **options)`: an unknown option raises ValueError naming it). With
    `work_dir` and `save_steps` > 0 it keeps the latest checkpoint there every `save_steps` RL steps."""
    algo = trainer_cls.algo
    o = defaults(algo, **options)
    if not examples:
        raise ValueError("no critical states to train on")
    device = next(model.parameters()).device
    check_vllm(vllm, device)
    # processes as torchrun / accelerate launch started them (accelerate's PartialState, made before
    # the Trainer's own, says 1 on CPUs)
    world = torch.distributed.get_world_size() if torch.distributed.is_initialized() else 1
    fields = grpo_config_fields(o, algo, int(os.environ.get("WORLD_SIZE", world)))
    keep = bool(work_dir) and save_steps > 0
    # the Trainer counts an optimizer step per update epoch; an RL step is updateEpochs of them
    saving = (
        {"save_strategy": "steps", "save_steps": save_steps * fields["num_iterations"], "save_total_limit": 1}
        if keep
        else {"save_strategy": "no"}
    )
    args = GRPOConfig(
        # TRL wants an output_dir for checkpoints; without save_steps it gets a scratch folder
        output_dir=work_dir or tempfile.mkdtemp(prefix=f"rmsweb-{algo}-"),
        **fields,
        logging_steps=1,
        **saving,
        report_to="none",
        disable_tqdm=True,
        use_cpu=device.type == "cpu",
        bf16=device.type == "cuda" and model.dtype == torch.bfloat16,
        fp16=False,
        use_vllm=vllm is not None,
        vllm_mode=vllm or "colocate",
    )
    torch.manual_seed(o["seed"])  # LoRA's initialization
    return trainer_cls(
        model=model,
        tok=tok,
        o=o,
        args=args,
        # TRL's sampler drops a partial batch, so fewer states than batchSize would train nothing;
        # cycled instead, as the hand-written loop's stream wrapped around
        train_dataset=rl_dataset(tok, [examples[i % len(examples)] for i in range(max(len(examples), o["batchSize"]))]),
        reward=reward,
        metrics_path=metrics_path,
        on_metrics=on_metrics,
        peft_config=lora_config(o, model) if o["lora"] else None,
    )


def train_rl(
    trainer_cls: type[RmswebGRPOTrainer],
    model: Any,
    tok: Any,
    examples: list[RlExample],
    *,
    checkpoint_dir: str | None = None,
    save_steps: int = 0,
    fingerprint: dict[str, Any] | None = None,
    dist: Dist | None = None,
    **kw: Any,
) -> tuple[RmswebGRPOTrainer, list[dict[str, float]]]:
    """Trains `model` in place (see build_trainer); returns (the trainer, per-step metrics). The
    trainer's `model` is the trained one (a peft model with lora); `save_rl` writes it.

    With `checkpoint_dir` and `save_steps`, the latest checkpoint is kept there every `save_steps`
    RL steps, and a run started again with the same `fingerprint` (model, data) and options resumes
    from it: the Trainer restores the weights or adapter, Adam's state, the RNGs and the position
    in the data, and the steps' metrics before it come back from the checkpoint, so the returned
    curve covers the whole run. A checkpoint of another fingerprint is discarded. `dist` says which
    process tends the checkpoint folder (default: a single process, as for train_sft)."""
    from transformers import TrainerCallback

    from .sft import resume_point

    keep = bool(checkpoint_dir) and save_steps > 0
    resume, prior, generations = None, [], 0
    if keep:
        # what decides the run besides model and data: the algorithm, its reward and its options
        decides = {k: v for k, v in kw.items() if k not in ("metrics_path", "on_metrics", "work_dir")}
        stamp = {**(fingerprint or {}), "algo": trainer_cls.algo, "options": decides}
        resume, _ = resume_point(checkpoint_dir, stamp, dist or Dist())
        if resume:
            steps_file = Path(resume, RL_STEPS_FILE)
            if steps_file.exists():
                kept = json.loads(steps_file.read_text(encoding="utf-8"))
                prior, generations = kept["steps"], kept["generations"]
        kw["work_dir"] = checkpoint_dir
    trainer = build_trainer(trainer_cls, model, tok, examples, save_steps=save_steps if keep else 0, **kw)
    trainer.rmsweb_metrics = list(prior)
    trainer._generations = generations  # charts/rollouts_total counts from the run's start

    class KeepSteps(TrainerCallback):
        """Each checkpoint carries the metrics of the steps it holds (a resumed run's curve starts there)."""

        def on_save(self, args, state, control, **_):
            if state.is_world_process_zero:
                ckpt = Path(args.output_dir, f"checkpoint-{state.global_step}")
                if ckpt.is_dir():
                    kept = {"steps": trainer.rmsweb_metrics, "generations": trainer._generations}
                    (ckpt / RL_STEPS_FILE).write_text(json.dumps(kept), encoding="utf-8")

    if keep:
        trainer.add_callback(KeepSteps())
    try:
        trainer.train(resume_from_checkpoint=resume)
    finally:
        trainer._log.close()
    return trainer, trainer.rmsweb_metrics


#: The file in each RL checkpoint that holds the metrics of the steps before it (and the generations sampled).
RL_STEPS_FILE = "rmsweb-rl-steps.json"


def save_rl(trainer: RmswebGRPOTrainer, tok: Any, out: str, meta: dict[str, Any]) -> None:
    """The checkpoint --out holds: config.json, model.safetensors, the tokenizer and
    rmsweb-trainer.json (LoRA merged into the weights, so `--agent hf:DIR` loads it plainly)."""
    from .lm import save_checkpoint

    if trainer.accelerator.is_main_process:
        save_checkpoint(trainer.accelerator.unwrap_model(trainer.model), tok, out, meta)
    trainer.accelerator.wait_for_everyone()
