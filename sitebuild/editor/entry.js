// The pages' code editor: CodeMirror 6 with Python highlighting, bundled by sitebuild/editor.py
// into one self-hosted script that static/cells.js loads when the reader first focuses or
// runs a cell. It exposes one function, window.cellEditor.create.
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import {
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { EditorView, drawSelection, keymap, lineNumbers } from "@codemirror/view";

// An editor holding `code` in `parent`. `onRun` runs on Ctrl/Cmd+Enter, `onChange(code)` after
// every edit. Tab indents; Escape then Tab leaves the editor (CodeMirror's tab focus mode).
function create(parent, code, { label, onRun, onChange }) {
  const run = () => {
    onRun();
    return true;
  };
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: code,
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        python(),
        EditorState.tabSize.of(4),
        keymap.of([{ key: "Mod-Enter", run }, indentWithTab, ...defaultKeymap, ...historyKeymap]),
        EditorView.contentAttributes.of({ "aria-label": label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    code: () => view.state.doc.toString(),
    setCode: (text) =>
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    focus: () => view.focus(),
  };
}

window.cellEditor = { create };
