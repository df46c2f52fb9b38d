// Validates Kubernetes objects (a JSON array on stdin) against the API schemas shipped by the pinned
// `kubernetes-models` package, offline. An ES module of its own: the package is ESM only, jest's
// CommonJS runtime cannot load it. Prints [{ object, errors }] with errors [] for a valid object.
import { text } from 'node:stream/consumers';

const objects = JSON.parse(await text(process.stdin));
const results = [];
for (const object of objects) {
  const name = `${object.apiVersion}/${object.kind} ${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
  // "v1" is the core group; "apps/v1" lives at kubernetes-models/apps/v1/<Kind>
  const specifier = `kubernetes-models/${object.apiVersion}/${object.kind}`;
  let Model;
  try {
    Model = (await import(specifier))[object.kind];
  } catch {
    results.push({ object: name, errors: [`no Kubernetes schema for ${object.apiVersion} ${object.kind}`] });
    continue;
  }
  try {
    new Model(object).validate();
    results.push({ object: name, errors: [] });
  } catch (err) {
    results.push({ object: name, errors: [err.message] });
  }
}
process.stdout.write(JSON.stringify(results));
