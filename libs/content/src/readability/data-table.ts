import { isElement, type AnyNode, type Element } from '../dom';
import type { InfoOf } from './types';

/**
 * readability's data-table test: markup that only data tables use (caption, th, thead, ...), or
 * enough rows and columns. A data table is never cleaned away; a layout table is judged like a div.
 */
export function isDataTable(table: Element, infoOf: InfoOf): boolean {
  const a = table.attribs;
  if (a.role === 'presentation' || a.datatable === '0') return false;
  if (a.summary) return true;
  let rows = 0;
  let cols = 0;
  let dataMarkup = false;
  let nested = false;
  const stack: AnyNode[] = [...table.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    switch (node.name) {
      case 'table':
        nested = true;
        continue;
      case 'caption':
        if ((infoOf(node)?.text ?? 1) > 0) dataMarkup = true;
        break;
      case 'col':
      case 'colgroup':
      case 'tfoot':
      case 'thead':
      case 'th':
        dataMarkup = true;
        break;
      case 'tr': {
        rows++;
        let c = 0;
        for (const cell of node.children)
          if (isElement(cell) && (cell.name === 'td' || cell.name === 'th')) c += Number(cell.attribs.colspan) || 1;
        cols = Math.max(cols, c);
        break;
      }
    }
    for (const child of node.children) stack.push(child);
  }
  if (dataMarkup) return true;
  if (nested) return false;
  if (rows >= 10 || cols > 4) return true;
  return rows * cols > 10;
}
