/**
 * The few DOM helpers the explorer needs. Elements are built with properties and text nodes only:
 * no innerHTML, so no text a report holds (names, labels, error messages) is ever parsed as markup.
 */
type Attributes = Readonly<Record<string, string | number | boolean | undefined>>;
type Child = Node | string | number | null | undefined | false;

/** An element with attributes (`false`/`undefined` leave one out, `true` sets it empty) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replace every child of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** The element with this id, of this type; a missing one is a bug of index.html. */
export function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`index.html lacks #${id} (${type.name})`);
  return element;
}
