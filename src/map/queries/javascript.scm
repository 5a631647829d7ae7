; JavaScript's own definitions, after ecmascript.scm's: class names are identifiers.
(class_declaration name: (identifier) @name) @definition.class
(class name: (identifier) @name) @definition.class
