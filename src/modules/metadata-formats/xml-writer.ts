/**
 * A minimal XML writer for generated documents: every text and attribute value is escaped, and an
 * element without content is dropped (`element` returns null), so no serializer can emit an empty
 * element the schema forbids or markup smuggled in through a sample field.
 */
export interface XmlElement {
  name: string;
  attributes: [string, string][];
  children: (XmlElement | string)[];
}

type Attributes = Record<string, string | number | null | undefined>;
type Child = XmlElement | string | number | null | undefined | false;

/** Characters XML 1.0 cannot carry at all, even escaped (controls other than tab, LF, CR; lone surrogates; U+FFFE/U+FFFF). */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function escapeXmlText(value: string): string {
  return value
    .replace(NOT_XML_CHAR, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#xD;');
}

/** Also escapes quotes and the whitespace characters attribute-value normalisation would turn into spaces. */
export function escapeXmlAttribute(value: string): string {
  return escapeXmlText(value).replace(/"/g, '&quot;').replace(/\t/g, '&#x9;').replace(/\n/g, '&#xA;');
}

/**
 * An element with the given attributes (null/undefined/blank ones left out) and children (null,
 * undefined, false and blank text left out); null when nothing is left to contain.
 */
export function element(
  name: string,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): XmlElement | null {
  const kept: (XmlElement | string)[] = [];
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    if (typeof child === 'object') kept.push(child);
    else if (String(child).trim() !== '') kept.push(typeof child === 'number' ? String(child) : child.trim());
  }
  if (!kept.length) return null;
  const attributeList: [string, string][] = [];
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || String(value).trim() === '') continue;
    attributeList.push([key, String(value)]);
  }
  return { name, attributes: attributeList, children: kept };
}

function open(node: XmlElement): string {
  const attributes = node.attributes.map(([key, value]) => ` ${key}="${escapeXmlAttribute(value)}"`).join('');
  return `<${node.name}${attributes}>`;
}

function write(node: XmlElement, depth: number, lines: string[]): void {
  const indent = '  '.repeat(depth);
  // Text content is written inline so no indentation whitespace leaks into it.
  if (node.children.some((child) => typeof child === 'string')) {
    const inner = node.children
      .map((child) => (typeof child === 'string' ? escapeXmlText(child) : inline(child)))
      .join('');
    lines.push(`${indent}${open(node)}${inner}</${node.name}>`);
    return;
  }
  lines.push(`${indent}${open(node)}`);
  for (const child of node.children) write(child as XmlElement, depth + 1, lines);
  lines.push(`${indent}</${node.name}>`);
}

function inline(node: XmlElement): string {
  const inner = node.children
    .map((child) => (typeof child === 'string' ? escapeXmlText(child) : inline(child)))
    .join('');
  return `${open(node)}${inner}</${node.name}>`;
}

/** The document: UTF-8 declaration, two-space indentation, final newline. */
export function serializeXml(root: XmlElement): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  write(root, 0, lines);
  return `${lines.join('\n')}\n`;
}
