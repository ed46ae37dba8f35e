// The one place that turns generated source into functions. Templates are compiled once into
// specialised record scanners, decoders and encoders (as avsc compiles Avro schemas), because
// interpreting a field list per record costs several times more. The generated source is built only
// from numbers and from identifiers chosen here, never from text found in a message.

/**
 * Compiles `function <name>(<params>) { <body> }` with `helpers` in scope as local constants, and
 * returns it. `name` becomes the function's name in profiles and stack traces (decodeTemplate256).
 */
export function compileFunction<F>(name: string, params: readonly string[], body: string, helpers: Readonly<Record<string, unknown>>): F {
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new Error(`invalid generated function name ${name}`);
  const names = Object.keys(helpers);
  const source = `${names.length > 0 ? `const { ${names.join(', ')} } = h;\n` : ''}return function ${name}(${params.join(', ')}) {\n${body}\n};`;
  // eslint-disable-next-line no-new-func -- the codec's single code-generation site; see the comment above.
  const factory = new Function('h', source) as (h: Readonly<Record<string, unknown>>) => F;
  return factory(helpers);
}
