; Definitions: @name is the defined name, @definition.KIND the whole definition.
; A function or method defined (not a macro's use, spelled like one: TEST_F(…) { … }, GTEST_DISALLOW_COPY_AND_ASSIGN_(T);): its name under the declarator's pointers and references, scoped
; (a::b::f, Type::f), a template's (f<T>), an operator (operator==, a conversion: operator bool).
(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
    (function_declarator declarator: (template_function name: (identifier) @name))
    (function_declarator declarator: (qualified_identifier name: [(identifier) (operator_name) (destructor_name) (operator_cast)] @name))
    (function_declarator declarator: (qualified_identifier name: (template_function name: (identifier) @name)))
    (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: [(identifier) (operator_name) (destructor_name)] @name)))
    (operator_cast) @name
    (qualified_identifier name: (operator_cast) @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (pointer_declarator declarator: (function_declarator declarator: (template_function name: (identifier) @name)))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: [(identifier) (operator_name)] @name)))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name)))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: (template_function name: (identifier) @name)))
    (reference_declarator (function_declarator declarator: (qualified_identifier name: [(identifier) (operator_name)] @name)))
  ]
  (#not-match? @name "^[A-Z][A-Z0-9]*_[A-Z0-9_]*$")) @definition.function
; Declared only (a prototype, a method in its class).
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
((declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function (#not-match? @name "^[A-Z][A-Z0-9]*_[A-Z0-9_]*$"))
; Types, a template's specializations (struct formatter<std::tm, Char> { … }) included.
(class_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name) (qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])] body: (_)) @definition.class
(struct_specifier name: [(type_identifier) @name (template_type name: (type_identifier) @name) (qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)])] body: (_)) @definition.class
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(enum_specifier name: (type_identifier) @name body: (_)) @definition.type
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(namespace_definition name: (namespace_identifier) @name) @definition.module
(preproc_function_def name: (identifier) @name) @definition.function
