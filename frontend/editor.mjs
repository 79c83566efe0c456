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
//   editor.markLine(n);   // highlight line n (1-based) as the one a report blames; null clears
//   editor.goToLine(n);   // put the cursor at the start of line n, scroll to it, focus
//
// setCode is one ordinary transaction, so the editor's history can undo it (Ctrl+Z). The marked
// line follows edits above it and goes away with the next markLine(null) or setCode.

import { EditorView } from "codemirror";
import { EditorState, Prec, StateEffect, StateField } from "@codemirror/state";
import {
  Decoration,
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
  ".cm-judge-error-line": {
    backgroundColor: "#fdecec",
    boxShadow: "inset 3px 0 0 #c62828",
  },
  ".cm-judge-error-line.cm-activeLine": { backgroundColor: "#fbdede" },
});

// The line a report blames (a compile error, a refused construct, an exception): one line
// decoration, replaced by each markLine and mapped through edits in between.
const setMarkedLine = StateEffect.define();
const errorLineMark = Decoration.line({
  class: "cm-judge-error-line",
  attributes: { "data-testid": "error-line", title: "The line the last run's error points at" },
});
const markedLine = StateField.define({
  create: () => Decoration.none,
  update(marks, transaction) {
    marks = marks.map(transaction.changes);
    for (const effect of transaction.effects) {
      if (!effect.is(setMarkedLine)) continue;
      const number = effect.value;
      const doc = transaction.state.doc;
      marks =
        Number.isInteger(number) && number >= 1 && number <= doc.lines
          ? Decoration.set([errorLineMark.range(doc.line(number).from)])
          : Decoration.none;
    }
    return marks;
  },
  provide: (field) => EditorView.decorations.from(field),
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
        markedLine,
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
        effects: setMarkedLine.of(null),
      });
    },
    markLine(number) {
      view.dispatch({ effects: setMarkedLine.of(number ?? null) });
    },
    goToLine(number) {
      const doc = view.state.doc;
      if (!Number.isInteger(number) || number < 1 || number > doc.lines) return false;
      const line = doc.line(number);
      view.dispatch({
        selection: { anchor: line.from },
        effects: EditorView.scrollIntoView(line.from, { y: "center" }),
      });
      view.focus();
      return true;
    },
    focus() {
      view.focus();
    },
  };
}

window.JudgeEditor = Object.freeze({ create, version: VERSION });
