// Read content out of a page for `extract`, in one evaluate: (roots, {kind, name}).
// roots: the elements in scope (the body for the whole page), in document order.
// Returns {matched, text} for text and markdown, {matched, values} for attr,
// {matched, headers, rows, markdown, tables} for table (or {matched, tables: 0}).
(roots, args) => {
  const clean = s => (s || '').replace(/\s+/g, ' ').trim();
  const TABLE = 'table, [role=table], [role=grid], [role=treegrid]';
  // Never rendered as content; form controls are skipped too, as their values may be secret.
  const SKIP = new Set([
    'script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link', 'iframe',
    'frame', 'object', 'embed', 'canvas', 'video', 'audio', 'svg', 'math', 'input', 'select',
    'textarea', 'option', 'datalist',
  ]);

  const display = el => getComputedStyle(el).display;
  const shown = el => {
    const d = display(el);
    if (d === 'none') return false;
    // display: contents has no box of its own, yet its children are laid out.
    return d === 'contents' || el.checkVisibility({visibilityProperty: true});
  };
  const isBlock = el => !display(el).startsWith('inline');
  const skipped = el => SKIP.has(el.localName) || !shown(el);
  // Children as rendered: a shadow host shows its shadow tree, a slot what is assigned to it.
  const kids = el => {
    if (el.shadowRoot) return Array.from(el.shadowRoot.childNodes);
    if (el.localName === 'slot') {
      const assigned = el.assignedNodes({flatten: true});
      if (assigned.length) return assigned;
    }
    return Array.from(el.childNodes);
  };

  // ------------------------------------------------------------ tables

  const isHeaderCell = c =>
    c.localName === 'th' || ['columnheader', 'rowheader'].includes(c.getAttribute('role'));

  function tableRows(table) {
    if (table instanceof HTMLTableElement) {
      return Array.from(table.rows, r => ({
        el: r, cells: Array.from(r.cells), head: r.parentElement.localName === 'thead',
      }));
    }
    const own = el => el.closest(TABLE) === table;
    return Array.from(table.querySelectorAll('[role=row]')).filter(own).map(r => {
      const cells = Array.from(
        r.querySelectorAll('[role=cell], [role=gridcell], [role=columnheader], [role=rowheader]'),
      ).filter(c => c.closest('[role=row]') === r);
      const head = cells.length > 0 && cells.every(c => c.getAttribute('role') === 'columnheader');
      return {el: r, cells, head};
    });
  }

  // One slot per column: a cell spanning columns fills each slot it covers (its text only in
  // the first, except in header rows), a cell spanning rows repeats in each row it covers.
  function grid(rows) {
    const carried = [];  // per column: {slot, left} of a cell spanning down into later rows
    return rows.map(row => {
      const slots = [];
      let col = 0;
      const takeCarried = () => {
        while (carried[col] && carried[col].left > 0) {
          carried[col].left -= 1;
          slots[col] = carried[col].slot;
          col += 1;
        }
      };
      for (const cell of row.cells) {
        takeCarried();
        const across = Math.min(Math.max(1, cell.colSpan || +cell.getAttribute('aria-colspan') || 1), 100);
        let down = cell.rowSpan ?? (+cell.getAttribute('aria-rowspan') || 1);
        if (down === 0) down = rows.length;  // rowspan=0: to the end of the table
        const text = clean(cell.innerText);
        for (let k = 0; k < across; k += 1) {
          const slot = {text, first: k === 0, header: isHeaderCell(cell)};
          slots[col + k] = slot;
          if (down > 1) carried[col + k] = {slot, left: down - 1};
        }
        col += across;
      }
      for (; col < carried.length; col += 1) takeCarried();
      return slots;
    });
  }

  function table(el) {
    const rows = tableRows(el).filter(r => r.el.getClientRects().length > 0);  // shown rows
    if (!rows.length) return {headers: [], rows: []};
    const cells = grid(rows);
    let headCount = rows.findIndex(r => !r.head);
    if (headCount === -1) headCount = rows.length;
    if (headCount === 0) headCount = 1;  // no thead: the first row names the columns
    const width = Math.max(...cells.map(s => s.length));
    const headers = [];
    const seen = new Map();
    for (let col = 0; col < width; col += 1) {
      const parts = [];
      for (const slots of cells.slice(0, headCount)) {
        const t = slots[col]?.text;
        if (t && parts[parts.length - 1] !== t) parts.push(t);
      }
      let name = parts.join(' / ') || `column ${col + 1}`;
      const n = (seen.get(name) || 0) + 1;
      seen.set(name, n);
      if (n > 1) name = `${name} (${n})`;
      headers.push(name);
    }
    const body = cells.slice(headCount)
      .map(slots => headers.map((_, col) => (slots[col]?.first ? slots[col].text : '')))
      .filter(values => values.some(v => v));
    return {headers, rows: body};
  }

  const pipe = s => s.replace(/\|/g, '\\|');
  function pipeTable({headers, rows}) {
    if (!headers.length) return '';
    const line = values => '| ' + values.map(pipe).join(' | ') + ' |';
    return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
  }

  // ------------------------------------------------------------ markdown

  // Inline content as text; whitespace is collapsed here, a <br> is a real newline.
  function inline(node) {
    if (node.nodeType === Node.TEXT_NODE) return node.data.replace(/\s+/g, ' ');
    if (node.nodeType !== Node.ELEMENT_NODE || skipped(node)) return '';
    const el = node;
    const tag = el.localName;
    if (tag === 'br') return '\n';
    if (tag === 'img') {
      const alt = clean(el.alt);
      return alt ? `![${alt}](${el.src})` : '';
    }
    // A block inside an inline element (a card inside a link) still separates words.
    const inner = kids(el)
      .map(k => (k.nodeType === Node.ELEMENT_NODE && isBlock(k) ? ` ${inline(k)} ` : inline(k)))
      .join('');
    const text = clean(inner);
    const wrap = mark => {
      const lead = /^\s/.test(inner) ? ' ' : '';
      const trail = /\s$/.test(inner) ? ' ' : '';
      return text ? `${lead}${mark}${text}${mark}${trail}` : inner;
    };
    if (tag === 'a' && typeof el.href === 'string' && el.href && !/^javascript:/i.test(el.href)) {
      const label = text || clean(el.getAttribute('aria-label') || el.title) || el.href;
      return `[${label}](${el.href.replace(/ /g, '%20')})`;
    }
    if (tag === 'strong' || tag === 'b') return wrap('**');
    if (tag === 'em' || tag === 'i') return wrap('*');
    if (tag === 'code' || tag === 'kbd' || tag === 'samp') return wrap('`');
    if (tag === 's' || tag === 'del') return wrap('~~');
    return inner;
  }

  const tidy = s => s.replace(/ +/g, ' ').replace(/ ?\n ?/g, '\n').trim();

  // Markdown blocks for an element's children, appended to `out`.
  function blocks(el, out) {
    let run = '';
    const flush = () => {
      const text = tidy(run);
      if (text) out.push(text);
      run = '';
    };
    for (const k of kids(el)) {
      if (k.nodeType === Node.ELEMENT_NODE && !skipped(k) && isBlock(k)) {
        flush();
        block(k, out);
      } else {
        run += inline(k);
      }
    }
    flush();
  }

  function block(el, out) {
    const tag = el.localName;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      const text = clean(kids(el).map(inline).join(''));
      if (text) out.push('#'.repeat(+heading[1]) + ' ' + text);
    } else if (tag === 'pre') {
      const code = el.innerText.replace(/\n+$/, '');
      const classes = `${el.className} ${el.querySelector('code')?.className || ''}`;
      const lang = /(?:^|\s)lang(?:uage)?-(\S+)/.exec(classes)?.[1] || '';
      const fence = code.includes('```') ? '~~~' : '```';
      out.push(`${fence}${lang}\n${code}\n${fence}`);
    } else if (tag === 'hr') {
      out.push('---');
    } else if (el.matches(TABLE) && !el.querySelector(TABLE)) {  // nested tables: layout
      const text = pipeTable(table(el));
      if (text) out.push(text);
    } else if (tag === 'ul' || tag === 'ol') {
      const text = list(el);
      if (text) out.push(text);
    } else if (tag === 'blockquote') {
      const inner = [];
      blocks(el, inner);
      if (inner.length) {
        out.push(inner.join('\n\n').split('\n').map(l => (l ? `> ${l}` : '>')).join('\n'));
      }
    } else {
      blocks(el, out);
    }
  }

  function list(el) {
    let n = el.localName === 'ol' ? el.start || 1 : 0;
    const items = [];
    for (const item of kids(el)) {
      if (item.nodeType !== Node.ELEMENT_NODE || skipped(item)) continue;
      const inner = [];
      if (isBlock(item)) blocks(item, inner);
      else if (tidy(inline(item))) inner.push(tidy(inline(item)));
      if (!inner.length) continue;
      const marker = n ? `${n++}. ` : '- ';
      const pad = ' '.repeat(marker.length);
      const lines = inner.join('\n').split('\n');
      items.push(lines.map((l, i) => (i ? pad : marker) + l).join('\n'));
    }
    return items.join('\n');
  }

  function markdown(root) {
    if (skipped(root)) return '';
    if (!isBlock(root) && root !== document.body) return tidy(inline(root));
    const out = [];
    block(root, out);
    return out.join('\n\n');
  }

  // ------------------------------------------------------------ kinds

  const matched = roots.length;
  if (args.kind === 'text') {
    const texts = roots.map(r => (r instanceof HTMLElement ? r.innerText : r.textContent) || '');
    return {matched, text: texts.join('\n\n')};
  }
  if (args.kind === 'markdown') {
    return {matched, text: roots.map(markdown).filter(Boolean).join('\n\n')};
  }
  if (args.kind === 'attr') {
    const values = roots.map(r => {
      const value = r.getAttribute(args.name);
      // As in snapshots, a password field's value is never read out.
      const secret = r instanceof HTMLInputElement && r.type === 'password';
      return secret && value && args.name.toLowerCase() === 'value' ? '••••••' : value;
    });
    return {matched, values};
  }
  if (args.kind === 'table') {
    const tables = roots.flatMap(r => (r.matches(TABLE) ? [r] : Array.from(r.querySelectorAll(TABLE))));
    if (!tables.length) return {matched, tables: 0};
    const found = table(tables[0]);
    return {matched, tables: tables.length, ...found, markdown: pipeTable(found)};
  }
  throw new Error(`unknown kind ${args.kind}`);
}
