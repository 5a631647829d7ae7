(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(class name: (constant) @name) @definition.class
(class name: (scope_resolution name: (constant) @name)) @definition.class
(module name: (constant) @name) @definition.module
(program (assignment left: (constant) @name) @definition.constant)
(module name: (scope_resolution name: (constant) @name)) @definition.module
