"""The world as an OpenEnv environment, end to end on loopback: `rmsweb env serve` started from the
repo, driven by openenv-core's own client and by `WorldEnv`; a task and a mined critical state finished
with reward 1 by a scripted solution (the heuristic teacher's actions, which the server attaches on
request); and a 2-step online GRPO run in TRL with a tiny random model against the server."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LOOKUP = "shop.product-price.train.000"  # one page: the teacher answers at once
LONG = "shop.count-filtered.train.000"  # seven steps: filters, then a count

chromium = os.environ.get("RMSWEB_CHROMIUM", "/usr/bin/chromium")
if not (Path(chromium).exists() and shutil.which("node")) and not os.environ.get("CI"):
    pytest.skip(f"needs Node and Chromium ({chromium})", allow_module_level=True)


def rmsweb(*args: str, timeout: int = 300) -> str:
    r = subprocess.run(["node", "bin/rmsweb.js", *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


@pytest.fixture(scope="module")
def critical(tmp_path_factory) -> tuple[Path, str]:
    """A critical state mined by hand from a teacher run of LONG: its second-to-last step."""
    d = tmp_path_factory.mktemp("env")
    tasks = [t for t in json.loads(rmsweb("world", "tasks", "--json", "--site", "shop")) if t["id"] == LONG]
    (d / "tasks.json").write_text(json.dumps(tasks))
    rmsweb(
        "collect",
        "--tasks",
        str(d / "tasks.json"),
        "--out",
        str(d / "collect"),
        "--max-rounds",
        "1",
        "--stop-after",
        "1",
        "--workers",
        "1",
    )
    db = sqlite3.connect(d / "collect" / "store.sqlite")
    bodies = [json.loads(b) for (b,) in db.execute("SELECT body FROM trajectories")]
    db.close()
    run = next(t for t in bodies if t["verdict"] and t["verdict"]["success"])
    i = len(run["steps"]) - 2
    step = run["steps"][i]
    side = {
        "trajectoryId": run["id"],
        "stepIndex": step["index"],
        "observation": step["observation"],
        "action": step["action"],
    }
    state = {
        "id": "cs_py",
        "task": run["task"],
        "success": side,
        "failure": {**side, "action": {"type": "go_back"}},
        "comparability": {"url": 1, "elements": 1, "memory": 1, "progress": 1, "total": 1},
        "label": "other",
        "labelSource": "test",
    }
    (d / "mined").mkdir()
    (d / "mined" / "critical.jsonl").write_text(json.dumps(state) + "\n")
    return d / "mined" / "critical.jsonl", "cs_py"


@pytest.fixture(scope="module")
def server(critical):
    """`rmsweb env serve --port 0` from the repo; yields its base URL."""
    file, _ = critical
    p = subprocess.Popen(
        ["node", "bin/rmsweb.js", "env", "serve", "--port", "0", "--sessions", "4", "--critical", str(file)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = p.stdout.readline()
    if "serving OpenEnv at" not in line:
        p.kill()
        raise AssertionError(f"server did not start: {line}{p.stderr.read()[-2000:]}")
    url = line.split("serving OpenEnv at ")[1].split(" ")[0]
    yield url
    p.terminate()
    p.wait(timeout=30)


def play(env, first, limit=40):
    r = first
    n = 0
    while not r.done and n < limit:
        r = env.step(r.observation["expert_action"])
        n += 1
    return r


def test_openenv_client_finishes_a_task_with_reward_1(server):
    from openenv.core.generic_client import GenericEnvClient

    with GenericEnvClient(base_url=server).sync() as env:
        r = env.reset(task_id=LONG, expert=True)
        assert not r.done and r.reward == 0
        assert r.observation["goal"] and r.observation["elements"]
        end = play(env, r)
        assert end.done and end.reward == 1
        assert end.observation["info"]["verdict"]["verifier"] == "world-programmatic"
        assert env.state()["step_count"] >= 5


def test_openenv_client_finishes_from_a_critical_state(server, critical):
    from openenv.core.generic_client import GenericEnvClient

    _, cid = critical
    with GenericEnvClient(base_url=server).sync() as env:
        r = env.reset(critical_state_id=cid, expert=True)
        replay = r.observation["info"]["replay"]
        assert replay["matched"] and replay["steps"] >= 4
        assert r.observation["step"] == 0
        end = play(env, r)
        assert end.done and end.reward == 1


def test_protocol_errors_do_not_end_the_session(server):
    from openenv.core.generic_client import GenericEnvClient

    with GenericEnvClient(base_url=server).sync() as env:
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            env.step({"type": "click", "index": "three"})
        with pytest.raises(RuntimeError, match="no world task"):
            env.reset(task_id="no.such.task")
        assert not env.reset(task_id=LOOKUP).done


def test_world_env_tools_and_reward(server):
    from rmsweb_trainer.env import WorldEnv

    with WorldEnv(server) as env:
        text = env.reset(task_id=LOOKUP, expert=True, prompt="ignored")
        assert text.startswith("Task: How much does")
        assert env.get_reward() == 0.0
        answer = env.observation["expert_action"]["answer"]
        assert env.done(answer) == "Task solved."
        assert env.get_reward() == 1.0
        assert env.click(1) == "The episode is over."
        env.reset(task_id=LOOKUP)
        page = env.scroll("down")
        assert "[" in page and not env.is_done
        assert env.done("It costs $1.00.") == "Task not solved." and env.get_reward() == 0.0
        assert (env.episodes, env.finished, env.infra_errors) == (2, 2, 0)


def test_trl_grpo_two_steps_against_the_server(server, tmp_path):
    """A smoke test, not a result: a random tiny model, two online GRPO steps, rewards and episodes counted."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen3_chat_template

    from rmsweb_trainer.env import WorldEnv
    from rmsweb_trainer.tiny import build_model, build_tokenizer

    tok = build_tokenizer(["click fill select scroll done index text option answer Task:"] * 4, vocab_size=300)
    # A chat template TRL knows how to render tools into and parse tool calls out of.
    tok.chat_template = qwen3_chat_template
    model = build_model(tok, "tiny", seed=0)
    envs: list[WorldEnv] = []

    def factory() -> WorldEnv:
        envs.append(WorldEnv(server, max_chars=300))
        return envs[-1]

    rows = [
        {
            "prompt": [{"role": "user", "content": "Solve the task with the tools."}],
            "task_id": LOOKUP,
            "perturbation_seed": k,
        }
        for k in range(4)
    ]
    args = GRPOConfig(
        output_dir=str(tmp_path / "grpo"),
        max_steps=2,
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=8,
        max_tool_calling_iterations=1,
        learning_rate=1e-4,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model, args=args, train_dataset=Dataset.from_list(rows), processing_class=tok, environment_factory=factory
    )
    trainer.train()
    logs = [h for h in trainer.state.log_history if "rewards/WorldEnv/mean" in h]
    assert len(logs) == 2, trainer.state.log_history
    assert all(0.0 <= h["rewards/WorldEnv/mean"] <= 1.0 for h in logs)
    assert sum(e.episodes for e in envs) >= 4
    assert sum(e.infra_errors for e in envs) == 0
    for e in envs:
        e._close()
    print(
        f"grpo smoke: {sum(e.episodes for e in envs)} episodes, rewards {[h['rewards/WorldEnv/mean'] for h in logs]}",
        file=sys.stderr,
    )
