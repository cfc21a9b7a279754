import { pytestSuite } from './testing/pytest-suite.ts';

/**
 * The trainer's smoke tests on the real local model (Gemma 3 270M from its GGUF: Salvage-DS and SFT
 * steps), the part of trainer/tests that trainer-python.test.ts leaves out. Under CI a missing model
 * fails them (bash scripts/get-local-model.sh installs it).
 */
pytestSuite('PyTorch trainer on the local Gemma 3 270M (pytest -k local_gemma)', [
  '-k',
  'local_gemma',
  'tests/test_cli_and_data.py',
]);
