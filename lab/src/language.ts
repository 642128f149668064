// language.ts: the wordlab command language (text/x-wordlab) for CodeMirror 6: commands, `key=` options,
// $variables, strings, numbers, comments.
//
// One command per line: `[name =] command words... key=value $var "string" 1.5 [command ...] # comment`.
// The first word of a line, and the first word inside `[ ]`, is in command position; it is coloured as a command
// only when the language has a command of that name (commands.ts, written at build time from `wordlab commands`),
// so a typo stays plain. `name =` before it is a definition. A string or a bracket left open continues on the next
// line, as in the language.
import { LanguageSupport, StreamLanguage, StringStream } from '@codemirror/language';
import { COMMANDS } from './commands';

/** The state carried from token to token and line to line. */
interface WordlabState {
  /** The next word is in command position (start of a line, after `name =`, after `[`). */
  command: boolean;
  /** Inside a string that continues on the next line. */
  inString: boolean;
  /** Open brackets. */
  depth: number;
}

const WORD = /^[A-Za-z_][A-Za-z0-9_.-]*/;
const KNOWN = new Set(COMMANDS);

/** Reads the rest of a string (after its opening quote); returns true when it closed on this line. */
function readString(stream: StringStream): boolean {
  let ch: string | void;
  while ((ch = stream.next())) {
    if (ch === '\\') stream.next();
    else if (ch === '"') return true;
  }
  return false;
}

/** The style of the next token (CodeMirror's legacy token names, which the editor's theme colours). */
function token(stream: StringStream, state: WordlabState): string | null {
  if (stream.sol() && state.depth === 0 && !state.inString) state.command = true;
  if (state.inString) {
    state.inString = !readString(stream);
    return 'string';
  }
  if (stream.eatSpace()) return null;
  if (stream.match(/^#.*/)) return 'comment';
  if (stream.match(/^"/)) {
    state.inString = !readString(stream);
    state.command = false;
    return 'string';
  }
  if (stream.match(/^\[/)) {
    state.depth += 1;
    state.command = true;
    return 'bracket';
  }
  if (stream.match(/^\]/)) {
    state.depth = Math.max(0, state.depth - 1);
    return 'bracket';
  }
  if (stream.match(/^\$[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/)) {
    state.command = false;
    return 'variableName.special';
  }
  if (stream.match(/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(?![A-Za-z_])/)) {
    state.command = false;
    return 'number';
  }
  if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*(?==)/)) return 'attributeName';
  if (stream.match(/^=/)) return 'operator';
  if (state.command) {
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*(?=\s*=(\s|$))/)) return 'variableName.definition';
    const word = stream.match(WORD) as RegExpMatchArray | null;
    if (word) {
      state.command = false;
      return KNOWN.has(word[0]) ? 'keyword' : null;
    }
  }
  if (stream.match(WORD)) return null;
  stream.next();
  return null;
}

/** The language as a CodeMirror stream parser. */
export const wordlabLanguage = StreamLanguage.define<WordlabState>({
  name: 'wordlab',
  startState: () => ({ command: true, inString: false, depth: 0 }),
  copyState: (s) => ({ ...s }),
  token,
  languageData: { commentTokens: { line: '#' } },
});

/** The language support that JupyterLab's editor language registry hands to editors of text/x-wordlab. */
export function wordlabSupport(): LanguageSupport {
  return new LanguageSupport(wordlabLanguage);
}
