"""rmsweb's PyTorch trainer: SFT, Salvage-DS, GRPO and DAPO for Hugging Face causal LMs on rmsweb's
exports. One file per algorithm (sft.py, salvage_ds.py, grpo.py, dapo.py); defaults come from the
options table shared with the TypeScript trainers (src/rl/options.json)."""

__version__ = "0.1.0"
