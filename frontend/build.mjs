// Rebuilds every vendored browser asset under app/static/vendor/ from the pinned npm packages:
//
//   npm --prefix frontend ci && npm --prefix frontend run build
//
// 1. the CodeMirror 6 editor bundle: editor.mjs -> vendor/codemirror-<version>.js (minified IIFE
//    that sets window.JudgeEditor), plus CodeMirror's license;
// 2. KaTeX: katex.min.js, katex.min.css, the woff2 fonts and the license -> vendor/katex-<version>/;
// 3. marked: its UMD build, minified (license header kept) -> vendor/marked-<version>.min.js.
//
// The output is committed: nothing here runs when the judge runs or in CI.

import { build, transform } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, "node_modules");
const vendor = join(here, "..", "app", "static", "vendor");

function versionOf(name) {
  return JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8")).version;
}

// Removes earlier builds of one asset, so a version bump leaves no stale file behind.
function removeOld(prefix) {
  for (const entry of readdirSync(vendor)) {
    if (entry.startsWith(prefix)) rmSync(join(vendor, entry), { recursive: true, force: true });
  }
}

mkdirSync(vendor, { recursive: true });

// 1. CodeMirror
const cmVersion = versionOf("codemirror");
const cmParts = [
  "codemirror",
  "@codemirror/state",
  "@codemirror/view",
  "@codemirror/language",
  "@codemirror/commands",
  "@codemirror/lang-python",
  "@lezer/highlight",
  "@lezer/python",
];
const cmBanner =
  `/*! judge editor bundle: CodeMirror ${cmVersion} (MIT License, Marijn Haverbeke and others, ` +
  `see codemirror-LICENSE). Built from frontend/editor.mjs with ` +
  cmParts.map((name) => `${name}@${versionOf(name)}`).join(", ") +
  ". */";
removeOld("codemirror-");
const cmFile = join(vendor, `codemirror-${cmVersion}.js`);
await build({
  entryPoints: [join(here, "editor.mjs")],
  outfile: cmFile,
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  legalComments: "none",
  banner: { js: cmBanner },
  define: { __CODEMIRROR_VERSION__: JSON.stringify(cmVersion) },
  logLevel: "warning",
});
copyFileSync(join(modules, "codemirror", "LICENSE"), join(vendor, "codemirror-LICENSE"));

// 2. KaTeX
const katexVersion = versionOf("katex");
removeOld("katex-");
const katexDir = join(vendor, `katex-${katexVersion}`);
mkdirSync(join(katexDir, "fonts"), { recursive: true });
for (const file of ["katex.min.js", "katex.min.css"]) {
  copyFileSync(join(modules, "katex", "dist", file), join(katexDir, file));
}
// Every browser the judge targets loads the woff2 fonts, the first source the CSS names.
for (const font of readdirSync(join(modules, "katex", "dist", "fonts"))) {
  if (font.endsWith(".woff2")) {
    copyFileSync(join(modules, "katex", "dist", "fonts", font), join(katexDir, "fonts", font));
  }
}
copyFileSync(join(modules, "katex", "LICENSE"), join(katexDir, "LICENSE"));

// 3. marked
const markedVersion = versionOf("marked");
removeOld("marked-");
const markedSource = readFileSync(join(modules, "marked", "lib", "marked.umd.js"), "utf8");
const minified = await transform(markedSource, {
  minify: true,
  legalComments: "none",
  target: "es2020",
  banner:
    `/*! marked v${markedVersion}, a markdown parser. Copyright (c) 2018-2026, MarkedJS; ` +
    "Copyright (c) 2011-2018, Christopher Jeffrey. MIT License, see marked-LICENSE. */",
});
writeFileSync(join(vendor, `marked-${markedVersion}.min.js`), minified.code);
copyFileSync(join(modules, "marked", "LICENSE"), join(vendor, "marked-LICENSE"));

// 4. Swagger UI for /docs (the API reference page), served by the judge itself: no CDN.
const swaggerVersion = versionOf("swagger-ui-dist");
removeOld("swagger-ui-");
const swaggerDir = join(vendor, `swagger-ui-${swaggerVersion}`);
mkdirSync(swaggerDir, { recursive: true });
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "LICENSE", "NOTICE"]) {
  copyFileSync(join(modules, "swagger-ui-dist", file), join(swaggerDir, file));
}

// The page names the versioned files (the app caches /static/vendor/ as immutable): point it at
// the ones just built.
const pagePath = join(here, "..", "app", "static", "exercise.html");
const page = readFileSync(pagePath, "utf8")
  .replace(/\/static\/vendor\/codemirror-[^"/]+\.js/g, `/static/vendor/codemirror-${cmVersion}.js`)
  .replace(/\/static\/vendor\/katex-[^"/]+\//g, `/static/vendor/katex-${katexVersion}/`)
  .replace(/\/static\/vendor\/marked-[^"/]+\.min\.js/g, `/static/vendor/marked-${markedVersion}.min.js`);
writeFileSync(pagePath, page);

console.log(
  `built vendor/codemirror-${cmVersion}.js, vendor/katex-${katexVersion}/, ` +
    `vendor/marked-${markedVersion}.min.js, vendor/swagger-ui-${swaggerVersion}/`,
);
