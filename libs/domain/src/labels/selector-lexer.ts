/**
 * Tokenizer for label selectors, mirroring the lexer in k8s.io/apimachinery/pkg/labels so that a
 * selector splits into the same tokens here as in kubectl and the API server.
 */
export type TokenKind = 'word' | '!' | '=' | '==' | '!=' | '(' | ')' | ',' | '<' | '>' | 'end';

export interface Token {
  readonly kind: TokenKind;
  /** The source text; keys, values and the keywords `in`/`notin` are all words. */
  readonly text: string;
  /** 1-based character position in the selector; the final `end` token sits one past the last character. */
  readonly position: number;
}

const WHITESPACE = new Set([' ', '\t', '\r', '\n']);
// '<' and '>' are Kubernetes' numeric comparison operators. This service does not support them, but
// they still end a word, so "a=b>c" fails at '>' just as it does in Kubernetes.
const SYMBOLS = new Set(['=', '!', '(', ')', ',', '<', '>']);
const TWO_CHAR_SYMBOLS = new Set(['==', '!=']);

/** Never fails: every symbol character is a token on its own, and anything else is part of a word. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && WHITESPACE.has(text[i])) i++;
    if (i === text.length) {
      tokens.push({ kind: 'end', text: '', position: i + 1 });
      return tokens;
    }
    const start = i;
    if (SYMBOLS.has(text[i])) {
      // Longest match first, as Kubernetes does: "===" is "==" then "=".
      const pair = text.slice(i, i + 2);
      const symbol = TWO_CHAR_SYMBOLS.has(pair) ? pair : text[i];
      i += symbol.length;
      tokens.push({ kind: symbol as TokenKind, text: symbol, position: start + 1 });
    } else {
      while (i < text.length && !WHITESPACE.has(text[i]) && !SYMBOLS.has(text[i])) i++;
      tokens.push({ kind: 'word', text: text.slice(start, i), position: start + 1 });
    }
  }
}
