// mode.ts: the CodeMirror 5 mode of the wordlab command language (text/x-wordlab): commands, `key=` options, $variables, strings, numbers, comments.
//
// One command per line: `[name =] command words... key=value $var "string" 1.5 [command ...] # comment`.
// The first word of a line, and the first word inside `[ ]`, is the command; `name =` before it is a definition.
// A string or a bracket left open continues on the next line, as in the language.

/** The state carried from token to token and line to line. */
interface WordlabState {
  /** The next word is a command (start of a line, after `name =`, after `[`). */
  command: boolean;
  /** Inside a string that continues on the next line. */
  inString: boolean;
  /** Open brackets. */
  depth: number;
}

/** The subset of CodeMirror's StringStream the mode uses. */
interface Stream {
  sol(): boolean;
  eatSpace(): boolean;
  match(pattern: RegExp, consume?: boolean): RegExpMatchArray | null;
  next(): string | undefined;
  skipToEnd(): void;
}

const WORD = /^[A-Za-z_][A-Za-z0-9_.-]*/;

/** Reads the rest of a string (after its opening quote); returns true when it closed on this line. */
function readString(stream: Stream): boolean {
  let ch: string | undefined;
  while ((ch = stream.next()) !== undefined) {
    if (ch === '\\') stream.next();
    else if (ch === '"') return true;
  }
  return false;
}

/** The CodeMirror mode object: token() returns the CodeMirror style of the next token (class cm-STYLE). */
export const wordlabMode = {
  startState(): WordlabState {
    return { command: true, inString: false, depth: 0 };
  },
  copyState(s: WordlabState): WordlabState {
    return { ...s };
  },
  lineComment: '#',
  token(stream: Stream, state: WordlabState): string | null {
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
      return 'variable-2';
    }
    if (stream.match(/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(?![A-Za-z_])/)) {
      state.command = false;
      return 'number';
    }
    if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*(?==)/)) return 'attribute';
    if (stream.match(/^=/)) return 'operator';
    if (state.command) {
      if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*(?=\s*=(\s|$))/)) return 'def';
      if (stream.match(WORD)) {
        state.command = false;
        return 'keyword';
      }
    }
    if (stream.match(WORD)) return 'word';
    stream.next();
    return null;
  },
};

/** The entry of CodeMirror's mode list (CodeMirror.modeInfo) that maps the name, MIME type and extension to the mode. */
export const wordlabModeInfo = { name: 'wordlab', mime: 'text/x-wordlab', mode: 'wordlab', ext: ['wlab'] };
