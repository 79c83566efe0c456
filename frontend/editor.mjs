// Entry point of the judge's editor bundle (built by `npm --prefix frontend run build`).
//
// It exposes one small object on `window`, so the page scripts need no module loader:
//
//   const editor = JudgeEditor.create(parentElement, {
//     doc: "starter code",          // initial text
//     onRun: () => {},              // Ctrl+Enter / Cmd+Enter inside the editor
//     onChange: (code) => {},       // after every change of the text
//     label: "Code editor",         // accessible name of the editing area
//   });
//   editor.getCode(); editor.setCode(text); editor.focus();
//
// setCode is one ordinary transaction, so the editor's history can undo it (Ctrl+Z).

import { EditorView } from "codemirror";
import { EditorState, Prec } from "@codemirror/state";
import {
  keymap,
  lineNumbers,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  drawSelection,
} from "@codemirror/view";
import {
  defaultKeymap,
  history,
  historyKeymap,
  indentWithTab,
} from "@codemirror/commands";
import {
  bracketMatching,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
  defaultHighlightStyle,
} from "@codemirror/language";
import { python } from "@codemirror/lang-python";

const VERSION = __CODEMIRROR_VERSION__; // replaced at build time

const theme = EditorView.theme({
  "&": {
    fontSize: "14px",
    backgroundColor: "#ffffff",
  },
  ".cm-content": {
    fontFamily: "var(--font-mono, ui-monospace, monospace)",
    padding: "8px 0",
  },
  ".cm-gutters": {
    backgroundColor: "#f5f6f8",
    color: "#5b6270",
    borderRight: "1px solid #d9dce3",
  },
  ".cm-activeLine": { backgroundColor: "#f3f6fc" },
  ".cm-activeLineGutter": { backgroundColor: "#e6ebf5", color: "#1d2433" },
  "&.cm-focused .cm-matchingBracket": {
    backgroundColor: "#d3e3ff",
    outline: "1px solid #6b8fd6",
  },
  "&.cm-focused .cm-nonmatchingBracket": { backgroundColor: "#ffd9d9" },
});

function create(parent, options = {}) {
  const onRun = options.onRun || (() => {});
  const onChange = options.onChange || (() => {});
  const label = options.label || "Code editor";

  const runKeys = Prec.highest(
    keymap.of([
      {
        key: "Mod-Enter",
        preventDefault: true,
        run: () => {
          onRun();
          return true;
        },
      },
    ]),
  );

  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.doc || "",
      extensions: [
        runKeys,
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        indentOnInput(),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        bracketMatching(),
        highlightActiveLine(),
        python(),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorView.contentAttributes.of({
          "aria-label": label,
          spellcheck: "false",
          autocapitalize: "off",
          autocorrect: "off",
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
        theme,
      ],
    }),
  });

  return {
    view,
    getCode() {
      return view.state.doc.toString();
    },
    setCode(text) {
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        selection: { anchor: 0 },
        scrollIntoView: true,
        userEvent: "input.replace",
      });
    },
    focus() {
      view.focus();
    },
  };
}

window.JudgeEditor = Object.freeze({ create, version: VERSION });
