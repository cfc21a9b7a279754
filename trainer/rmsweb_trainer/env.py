"""The offline world as an environment for online RL engines: a client of `rmsweb env serve`.

`WorldEnv` speaks OpenEnv through openenv-core's own client (one WebSocket session, one browser
context on the server) and is shaped as TRL's `GRPOTrainer(environment_factory=...)` expects: a
`reset(**row)` that returns the task and the page as text, one typed, documented method per action
(each becomes a tool the model calls by element index), and `get_reward()`, the programmatic
verifier's verdict once the episode has ended (0.0 before). An infrastructure failure (browser
lost, a page that did not load) is never a reward of 0: `get_reward()` then returns None, which TRL
leaves out of the group, and the failure is counted in `infra_errors`.

    env = WorldEnv("http://127.0.0.1:8000")
    print(env.reset(task_id="shop.product-price.train.000"))
    env.done("The Northpeak Merino Hiking Socks 2 Cushioned costs $34.99.")
    env.get_reward()  # 1.0
"""

from __future__ import annotations

from typing import Any

#: Reset options the server takes; other keys of a dataset row (the prompt, ...) are not sent.
RESET_KEYS = {
    "task_id",
    "split",
    "index",
    "world_seed",
    "perturbation_seed",
    "critical_state_id",
    "screenshot",
    "expert",
    "max_steps",
    "seed",
    "episode_id",
}


class InfrastructureError(RuntimeError):
    """The server could not run the episode (its `info.infra_error`); not the agent's failure."""


class WorldEnv:
    """One session of `rmsweb env serve`: reset, act by element index, read the verifier's reward.

    Args:
        base_url: The server, e.g. ``http://127.0.0.1:8000`` (``ws://`` works too).
        max_chars: The page text handed to the model is cut to this many characters.
        reset_retries: Resets tried again after an infrastructure error before it is raised.
        **defaults: Reset options used when a reset does not give them (e.g. ``split="train"``).
    """

    def __init__(
        self, base_url: str = "http://127.0.0.1:8000", max_chars: int = 4000, reset_retries: int = 2, **defaults: Any
    ):
        from openenv.core.generic_client import GenericEnvClient

        unknown = set(defaults) - RESET_KEYS
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; known: {sorted(RESET_KEYS)}")
        self._client = GenericEnvClient(base_url=base_url).sync()
        self._connected = False
        self._defaults = defaults
        self._max_chars = max_chars
        self._retries = reset_retries
        self._result: Any = None
        #: Episodes started and finished, and infrastructure errors met, over this client's life.
        self.episodes = 0
        self.finished = 0
        self.infra_errors = 0

    # -- TRL's environment contract -------------------------------------------------------------

    def reset(self, **options: Any) -> str:
        """Starts an episode and returns the task and the first page as text."""
        if not self._connected:
            self._client.connect()
            self._connected = True
        data = {**self._defaults, **{k: v for k, v in options.items() if k in RESET_KEYS}}
        for attempt in range(self._retries + 1):
            self._result = self._client.reset(**data)
            err = self.info.get("infra_error")
            if not err:
                break
            self.infra_errors += 1
            if attempt == self._retries:
                raise InfrastructureError(f"reset failed: {err}")
        self.episodes += 1
        if self._result.done:
            # A critical state whose prefix no longer replays: there is no episode to play.
            self.finished += 1
            return f"The episode could not start: {self.info.get('replay', {}).get('detail', '')}"
        obs = self.observation
        return f"Task: {obs['goal']}\n\n{self._page()}"

    def get_reward(self) -> float | None:
        """The verifier's verdict (1.0 or 0.0) once the episode ended; 0.0 before; None after an infrastructure error."""
        r = self._result
        if r is None or not r.done:
            return 0.0
        if self.info.get("infra_error") or r.reward is None:
            return None
        return float(r.reward)

    # -- Tools: one per action, by element index ------------------------------------------------

    def click(self, index: int) -> str:
        """Click an element of the page.

        Args:
            index: The element's index, the number in brackets before it on the page.

        Returns:
            The page after the click.
        """
        return self._act({"type": "click", "index": int(index)})

    def fill(self, index: int, text: str) -> str:
        """Type text into an input field, replacing what it held.

        Args:
            index: The input's index on the page.
            text: The text to type.

        Returns:
            The page after typing.
        """
        return self._act({"type": "input", "index": int(index), "text": str(text)})

    def select(self, index: int, option: str) -> str:
        """Choose an option of a drop-down list.

        Args:
            index: The list's index on the page.
            option: The visible text of the option to choose.

        Returns:
            The page after choosing.
        """
        return self._act({"type": "select", "index": int(index), "option": str(option)})

    def scroll(self, direction: str) -> str:
        """Scroll the page by one screen.

        Args:
            direction: "down" or "up".

        Returns:
            The page after scrolling.
        """
        return self._act({"type": "scroll", "direction": "up" if str(direction).lower() == "up" else "down"})

    def go_back(self) -> str:
        """Go back to the previous page.

        Returns:
            The previous page.
        """
        return self._act({"type": "go_back"})

    def done(self, answer: str) -> str:
        """Finish the task with the final answer (or a short summary of what was done).

        Args:
            answer: The answer to the task's question, or what was done.

        Returns:
            Whether the task was solved.
        """
        return self._act({"type": "done", "answer": str(answer)})

    # -- State ---------------------------------------------------------------------------------

    @property
    def observation(self) -> dict[str, Any]:
        """The last observation (goal, url, title, text, elements, last_action_error, info, ...)."""
        return self._result.observation if self._result is not None else {}

    @property
    def info(self) -> dict[str, Any]:
        """The last observation's `info`: episode and task ids, end reason, verdict, replay, infra error."""
        return self.observation.get("info", {}) if self._result is not None else {}

    @property
    def is_done(self) -> bool:
        """Whether the episode has ended."""
        return bool(self._result is not None and self._result.done)

    @property
    def reward(self) -> float | None:
        """The last step's reward (None after an infrastructure error)."""
        return None if self._result is None else self._result.reward

    def _act(self, action: dict[str, Any]) -> str:
        if self._result is None:
            return "No episode: reset first."
        if self._result.done:
            return "The episode is over."
        self._result = self._client.step(action)
        if self._result.done:
            self.finished += 1
            err = self.info.get("infra_error")
            if err:
                self.infra_errors += 1
                return f"The episode stopped: the environment failed ({err.get('kind')})."
            return "Task solved." if self._result.reward == 1 else "Task not solved."
        return self._page()

    def _page(self) -> str:
        obs = self.observation
        err = obs.get("last_action_error")
        text = obs.get("text", "")[: self._max_chars]
        return f"{'Last action failed: ' + err + chr(10) if err else ''}{text}"

    def __enter__(self) -> WorldEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()

    def __del__(self) -> None:
        try:
            self._close()
        except Exception:
            pass

    def _close(self) -> None:
        """Ends the session (the server frees its browser context). Not a tool: TRL exposes public methods."""
        if self._connected:
            self._connected = False
            self._client.close()
