//! The JSON-Schema reading behind examples and descriptions: [`arg_types::json_schema`], the
//! reading the coercer uses, so that what the model is shown is what its call is read through.
//! Type names are read with [`types_with_values`] (a schema with only `enum` or `const` has the
//! types of its values), and resolution is bounded, so that recursive or hostile schemas end.

pub(crate) use arg_types::json_schema::{
    SchemaDoc, alternatives, item_schema, required, types_with_values, value_type,
};
