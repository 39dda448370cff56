// Names each module of the reference by the import path it is published at (`@openresponses/server/node`)
// instead of its source path (`packages/server/src/node`).
import { Converter, ReflectionKind } from 'typedoc';
import { entryPoints } from './entry-points.mjs';

/** @param {import('typedoc').Application} app */
export function load(app) {
  const byFile = new Map(entryPoints().map((e) => [e.file, e.importPath]));
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(ReflectionKind.Module)) return;
    const file = context.getSymbolFromReflection(reflection)?.declarations?.[0]?.getSourceFile().fileName;
    const name = file && byFile.get(file);
    if (name) reflection.name = name;
  });
}
