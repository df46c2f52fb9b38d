import { tokenize } from './selector-lexer';

const kinds = (text: string) => tokenize(text).map((t) => (t.kind === 'word' ? t.text : t.kind));

describe('tokenize', () => {
  it('splits words at whitespace and symbols, giving 1-based positions', () => {
    expect(tokenize('a in(b)')).toEqual([
      { kind: 'word', text: 'a', position: 1 },
      { kind: 'word', text: 'in', position: 3 },
      { kind: '(', text: '(', position: 5 },
      { kind: 'word', text: 'b', position: 6 },
      { kind: ')', text: ')', position: 7 },
      { kind: 'end', text: '', position: 8 },
    ]);
  });

  it('takes the longest symbol first, like Kubernetes', () => {
    expect(kinds('a==b')).toEqual(['a', '==', 'b', 'end']);
    expect(kinds('a!=b')).toEqual(['a', '!=', 'b', 'end']);
    expect(kinds('a===b')).toEqual(['a', '==', '=', 'b', 'end']);
    expect(kinds('!!=')).toEqual(['!', '!=', 'end']);
    expect(kinds('=!a')).toEqual(['=', '!', 'a', 'end']);
    expect(kinds('a>=1')).toEqual(['a', '>', '=', '1', 'end']);
  });

  it('treats space, tab, CR and LF as whitespace and nothing else', () => {
    expect(kinds(' \t\r\na\u00a0b ')).toEqual(['a\u00a0b', 'end']);
    expect(tokenize(' \t ')).toEqual([{ kind: 'end', text: '', position: 4 }]);
  });
});
