/**
 * The slice of node-llama-cpp's API that llama-backend.ts uses, typed here so the main job
 * type-checks without the package installed, and so tests can stand in a scripted runtime.
 */

export type Token = number;
export type Tokenizer = (text: string, specialTokens?: boolean) => Token[];
export interface LlamaText {
  tokenize(tokenizer: Tokenizer): Token[];
}
export interface ChatWrapper {
  readonly wrapperName: string;
  generateContextState(o: { chatHistory: ChatHistoryItem[] }): { contextText: LlamaText };
}
export type ChatHistoryItem =
  | { type: 'system'; text: string }
  | { type: 'user'; text: string }
  | { type: 'model'; response: string[] };
export interface Grammar {
  readonly __grammar?: never;
}
export interface GrammarState {
  readonly __state?: never;
}
export interface EvalOutput {
  token: Token;
  confidence?: number;
  probabilities?: Map<Token, number>;
}
export interface Sequence {
  readonly nextTokenIndex: number;
  adaptStateToTokens(tokens: Token[], allowShift?: boolean): Promise<void>;
  clearHistory(): Promise<void>;
  /** Adds tokens to the context without sampling: the prompt, a chunk at a time. */
  evaluateWithoutGeneratingNewTokens(tokens: Token[]): Promise<void>;
  evaluate(
    tokens: Token[],
    o: Record<string, unknown>,
  ): AsyncGenerator<Token, void, undefined | Token | Token[]>;
  evaluateWithMetadata(
    tokens: Token[],
    meta: { confidence?: boolean; probabilities?: boolean },
    o: Record<string, unknown>,
  ): AsyncGenerator<EvalOutput, void, undefined | Token | Token[]>;
}
export interface Context {
  readonly contextSize: number;
  getSequence(): Sequence;
  dispose(): Promise<void>;
}
export interface Model {
  readonly tokenizer: Tokenizer;
  /** What a raw prompt starts with: llama.cpp's tokenizer adds BOS only when the GGUF asks for it. */
  readonly tokens: { readonly bos: Token | null; readonly shouldPrependBosToken: boolean };
  readonly trainContextSize: number;
  detokenize(tokens: readonly Token[], specialTokens?: boolean): string;
  isEogToken(token: Token | undefined): boolean;
  createContext(o: {
    contextSize?: number;
    threads?: number;
    sequences?: number;
    /** LoRA adapter GGUFs applied over the weights (node-llama-cpp loads them with the context). */
    lora?: { adapters: { filePath: string; scale?: number }[] };
  }): Promise<Context>;
  dispose(): Promise<void>;
}
export interface Llama {
  loadModel(o: { modelPath: string }): Promise<Model>;
  /** Synchronous underneath (GBNF text, then llama.cpp's parser): it cannot be interrupted. */
  createGrammarForJsonSchema(schema: Record<string, unknown>): Promise<Grammar>;
  getGrammarFor(type: 'json'): Promise<Grammar>;
  dispose(): Promise<void>;
}
export interface LlamaModule {
  getLlama(o: { gpu: false; build: 'never'; logLevel?: string }): Promise<Llama>;
  resolveChatWrapper(model: Model): ChatWrapper | null;
  LlamaGrammarEvaluationState: new (o: { model: Model; grammar: Grammar }) => GrammarState;
}
