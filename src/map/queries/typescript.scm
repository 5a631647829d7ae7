; Definitions: @name is the defined name, @definition.KIND the whole definition.
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(class name: (type_identifier) @name) @definition.class
(method_definition name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method
(method_signature name: (property_identifier) @name) @definition.method
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.type
(module name: (identifier) @name) @definition.module
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function)
(program (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function)
(assignment_expression left: (member_expression property: (property_identifier) @name) right: (function_expression)) @definition.function
(program (expression_statement (assignment_expression left: (member_expression property: (property_identifier) @name) right: (arrow_function)) @definition.function))
(export_statement (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)
(function_expression name: (identifier) @name) @definition.function
(pair key: (property_identifier) @name value: (function_expression)) @definition.method
