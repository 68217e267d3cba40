/// The playground's one page: editor, live diagram, gallery picker, folder files, save and
/// downloads. Self-contained (inline style and script, no fonts or libraries from elsewhere).
enum PlaygroundPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>Marbles playground</title>
        <style>
        :root { --bg: #ffffff; --fg: #1a1a1a; --muted: #5d6270; --panel: #f3f4f8; --border: #c9ccd6;
                --error: #b3261e; --error-bg: #fdecea; --accent: #2f5bd3; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #16171c; --fg: #e6e6ea; --muted: #a0a4b3; --panel: #20222a; --border: #3a3d49;
                  --error: #ff8a80; --error-bg: #3b1f1f; --accent: #8fb0ff; }
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.4 system-ui, sans-serif; }
        header { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; padding: 10px 16px;
                 border-bottom: 1px solid var(--border); background: var(--panel); }
        header h1 { font-size: 16px; margin: 0 8px 0 0; }
        label { color: var(--muted); }
        select { max-width: 10em; }
        select, input, button { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--border);
                                border-radius: 4px; padding: 3px 8px; }
        button { cursor: pointer; }
        button:hover { border-color: var(--accent); }
        #status { margin-left: auto; color: var(--muted); text-align: right; }
        main { display: grid; grid-template-columns: minmax(320px, 1fr) minmax(320px, 1.4fr); gap: 16px; padding: 16px; }
        @media (max-width: 900px) { main { grid-template-columns: 1fr; } }
        .editor { position: relative; display: flex; border: 1px solid var(--border); border-radius: 4px;
                  background: var(--bg); height: 60vh; overflow: hidden; }
        .code { font: 13px/20px ui-monospace, "DejaVu Sans Mono", monospace; tab-size: 4; }
        #gutter { margin: 0; padding: 8px 6px; min-width: 3.2em; text-align: right; color: var(--muted);
                  background: var(--panel); border-right: 1px solid var(--border); overflow: hidden; user-select: none; }
        #gutter .bad { color: var(--error); font-weight: bold; }
        .surface { position: relative; flex: 1; overflow: hidden; }
        #highlight, #editor { position: absolute; inset: 0; margin: 0; padding: 8px; border: 0; white-space: pre;
                              overflow: auto; }
        #highlight { color: transparent; pointer-events: none; }
        #highlight .line { background: var(--error-bg); }
        #highlight mark { background: transparent; color: transparent; text-decoration: underline wavy var(--error);
                          text-decoration-thickness: 2px; text-underline-offset: 4px; border-left: 2px solid var(--error); }
        #editor { background: transparent; color: var(--fg); resize: none; outline: none; caret-color: var(--fg); }
        #error { margin: 8px 0 0; padding: 8px 10px; border-left: 4px solid var(--error); background: var(--error-bg);
                 color: var(--error); white-space: pre-wrap; overflow-x: auto; }
        #error[hidden] { display: none; }
        .view { display: flex; flex-direction: column; gap: 8px; }
        #canvas { border: 1px solid var(--border); border-radius: 4px; padding: 12px; min-height: 200px; overflow: auto;
                  display: flex; align-items: flex-start; justify-content: center; }
        #diagram { max-width: 100%; transition: opacity .15s; }
        #canvas.stale #diagram { opacity: .35; filter: grayscale(.6); }
        #placeholder { color: var(--muted); align-self: center; }
        #summary { color: var(--muted); margin: 0; }
        kbd { font: 12px ui-monospace, monospace; border: 1px solid var(--border); border-radius: 3px; padding: 0 4px; }
        </style>
        </head>
        <body>
        <header>
          <h1>Marbles playground</h1>
          <label>Gallery <select id="gallery" aria-label="Load an operator from the gallery"><option value="">operator…</option></select></label>
          <label>Folder <select id="files" aria-label="Open a spec from the served folder"><option value="">spec…</option></select></label>
          <label>Save as <input id="path" size="16" placeholder="name.marble" aria-label="Path to save to, inside the served folder"></label>
          <button id="save" title="Save (Ctrl+S)">Save</button>
          <button id="download-svg" title="Download SVG" aria-label="Download SVG">SVG ↓</button>
          <button id="download-png" title="Download PNG" aria-label="Download PNG">PNG ↓</button>
          <span id="status" role="status" aria-live="polite"></span>
        </header>
        <main>
          <section>
            <div class="editor">
              <pre id="gutter" class="code" aria-hidden="true">1</pre>
              <div class="surface">
                <pre id="highlight" class="code" aria-hidden="true"></pre>
                <textarea id="editor" class="code" wrap="off" spellcheck="false" autocapitalize="off" autocomplete="off"
                          aria-label="Diagram spec" aria-describedby="error"></textarea>
              </div>
            </div>
            <pre id="error" class="code" role="alert" hidden></pre>
            <p><label>Spec format: <kbd>input: --a--b--|</kbd> <kbd>operator: map(x * 10)</kbd>; the diagram is computed by running the operator.</label></p>
          </section>
          <section class="view">
            <div id="canvas" data-state="empty"><span id="placeholder">Type a spec; its diagram appears here.</span><img id="diagram" alt="" hidden></div>
            <p id="summary"></p>
          </section>
        </main>
        <script>
        "use strict";
        const token = new URLSearchParams(location.search).get("token") || "";
        const $ = (id) => document.getElementById(id);
        const editor = $("editor"), gutter = $("gutter"), highlight = $("highlight"), errorBox = $("error");
        const canvas = $("canvas"), diagram = $("diagram"), summary = $("summary"), statusLine = $("status");
        let requested = 0, shown = 0, timer = null, blobURL = null, lastError = null;

        function api(path, options = {}) {
          const headers = Object.assign({ "X-Marbles-Token": token }, options.headers || {});
          return fetch(path, Object.assign({}, options, { headers }));
        }
        function say(text) { statusLine.textContent = text; }
        async function errorOf(response) {
          try { return await response.json(); } catch (_) { return { error: response.status + " " + response.statusText }; }
        }

        // The gutter and the highlight layer follow the text; the highlight marks a spec error's line and column.
        function paint() {
          const lines = editor.value.split("\n");
          const bad = lastError && lastError.line ? lastError.line : 0;
          gutter.innerHTML = "";
          lines.forEach((_, i) => {
            const n = document.createElement("span");
            n.textContent = (i + 1) + "\n";
            if (i + 1 === bad) { n.className = "bad"; n.title = lastError.error; }
            gutter.appendChild(n);
          });
          highlight.textContent = "";
          lines.forEach((text, i) => {
            const line = document.createElement("span");
            if (i + 1 === bad) {
              line.className = "line";
              const chars = Array.from(text), at = Math.max((lastError.column || 1) - 1, 0);
              line.append(chars.slice(0, at).join(""));
              const mark = document.createElement("mark");
              mark.textContent = chars.slice(at, at + 1).join("") || " ";
              line.append(mark, chars.slice(at + 1).join(""));
            } else {
              line.textContent = text;
            }
            highlight.append(line, i + 1 < lines.length ? "\n" : " ");
          });
          syncScroll();
        }
        function syncScroll() { highlight.scrollTop = gutter.scrollTop = editor.scrollTop; highlight.scrollLeft = editor.scrollLeft; }

        function showDiagram(svg) {
          const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
          const title = doc.querySelector("title"), desc = doc.querySelector("desc");
          if (blobURL) URL.revokeObjectURL(blobURL);
          blobURL = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
          diagram.src = blobURL;
          diagram.alt = desc ? desc.textContent : "";
          diagram.dataset.title = title ? title.textContent : "";
          diagram.hidden = false;
          $("placeholder").hidden = true;
          summary.textContent = desc ? desc.textContent : "";
          canvas.classList.remove("stale");
          canvas.dataset.state = "ok";
          lastError = null;
          errorBox.hidden = true;
          errorBox.textContent = "";
          paint();
        }
        function showError(body) {
          lastError = body;
          errorBox.textContent = body.error;
          errorBox.hidden = false;
          canvas.dataset.state = "error";
          if (!diagram.hidden) canvas.classList.add("stale");
          paint();
        }

        async function render() {
          const mine = ++requested;
          say("rendering…");
          let response;
          try {
            response = await api("/api/render?format=svg", { method: "POST", body: editor.value,
                                                             headers: { "Content-Type": "text/plain; charset=utf-8" } });
          } catch (e) {
            if (mine > shown) { shown = mine; showError({ error: "the playground server does not answer (" + e.message + ")" }); say(""); }
            return;
          }
          const body = response.ok ? await response.text() : await errorOf(response);
          if (mine <= shown) return;  // a newer answer is on screen already
          shown = mine;
          if (response.ok) { showDiagram(body); say("rendered"); } else { showError(body); say(body.line ? "error at line " + body.line + ", column " + body.column : "error"); }
        }
        function schedule() { lastError = null; paint(); clearTimeout(timer); timer = setTimeout(render, 200); }

        function load(text, path) {
          editor.value = text;
          if (path !== undefined) $("path").value = path;
          paint();
          clearTimeout(timer);
          render();
        }
        async function loadGallery() {
          const response = await api("/api/gallery");
          if (!response.ok) { say((await errorOf(response)).error); return []; }
          const entries = await response.json();
          for (const entry of entries) {
            const option = document.createElement("option");
            option.value = entry.name; option.textContent = entry.name; option.dataset.spec = entry.spec;
            $("gallery").appendChild(option);
          }
          return entries;
        }
        async function loadFiles() {
          const response = await api("/api/files");
          if (!response.ok) return [];
          const list = await response.json();
          const select = $("files");
          select.length = 1;
          select.title = list.folder;
          for (const file of list.files) {
            const option = document.createElement("option");
            option.value = file; option.textContent = file;
            select.appendChild(option);
          }
          return list.files;
        }
        async function openFile(path) {
          const response = await api("/api/file?path=" + encodeURIComponent(path));
          if (!response.ok) { say((await errorOf(response)).error); return; }
          load(await response.text(), path);
          say("opened " + path);
        }
        async function save() {
          const path = $("path").value.trim();
          if (!path) { say("name the file to save first (Save as)"); $("path").focus(); return; }
          const response = await api("/api/file?path=" + encodeURIComponent(path), { method: "PUT", body: editor.value,
                                                                                       headers: { "Content-Type": "text/plain; charset=utf-8" } });
          if (response.ok) {
            const body = await response.json();
            await loadFiles();
            $("files").value = path;
            say("saved " + body.saved + " (" + body.bytes + " bytes)");
          } else {
            say("not saved: " + (await errorOf(response)).error);
          }
        }
        async function download(format) {
          const theme = format === "svg" ? "auto" : (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
          const response = await api("/api/render?format=" + format + "&theme=" + theme, { method: "POST", body: editor.value });
          if (!response.ok) { say("cannot download: " + (await errorOf(response)).error.split("\n")[0]); return; }
          const link = document.createElement("a");
          const base = ($("path").value.trim().split("/").pop() || diagram.dataset.title || "diagram").replace(/\.marble$/, "");
          link.href = URL.createObjectURL(await response.blob());
          link.download = base + "." + format;
          document.body.appendChild(link); link.click(); link.remove();
          setTimeout(() => URL.revokeObjectURL(link.href), 1000);
          say("downloaded " + link.download);
        }

        editor.addEventListener("input", schedule);
        editor.addEventListener("scroll", syncScroll);
        editor.addEventListener("keydown", (event) => {
          if ((event.ctrlKey || event.metaKey) && event.key === "s") { event.preventDefault(); save(); }
          if (event.key === "Tab") { event.preventDefault(); document.execCommand("insertText", false, "    "); }
        });
        $("gallery").addEventListener("change", (event) => {
          const option = event.target.selectedOptions[0];
          if (option && option.dataset.spec !== undefined) { load(option.dataset.spec + "\n", option.value + ".marble"); $("files").value = ""; say("loaded " + option.value + " from the gallery"); }
        });
        $("files").addEventListener("change", (event) => { if (event.target.value) { openFile(event.target.value); $("gallery").value = ""; } });
        $("save").addEventListener("click", save);
        $("download-svg").addEventListener("click", () => download("svg"));
        $("download-png").addEventListener("click", () => download("png"));

        (async () => {
          if (!token) { showError({ error: "this address has no token: open the one marbleplay printed when it started" }); return; }
          const [entries, files] = await Promise.all([loadGallery(), loadFiles()]);
          if (files.length) { $("files").value = files[0]; await openFile(files[0]); }
          else {
            const first = entries.find((e) => e.name === "map") || entries[0];
            if (first) { $("gallery").value = first.name; load(first.spec + "\n", first.name + ".marble"); }
          }
        })();
        </script>
        </body>
        </html>
        """#
}
