; Definitions: @name is the defined name, @definition.KIND the whole definition. These are JavaScript's and
; TypeScript's alike; languages.ts puts them before each language's own query.
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (property_identifier) @name) @definition.method
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function)
(program (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function)
(assignment_expression left: (member_expression property: (property_identifier) @name) right: (function_expression)) @definition.function
(program (expression_statement (assignment_expression left: (member_expression property: (property_identifier) @name) right: (arrow_function)) @definition.function))
(export_statement (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)
(function_expression name: (identifier) @name) @definition.function
(pair key: (property_identifier) @name value: (function_expression)) @definition.method
