//! How a fitted strategy is written to a model file. The binary encoding
//! (MessagePack, [`crate::persist`]) writes a struct's fields by position,
//! and a file of an older rarity ends where its fields end; so an optional
//! field is left out only when nothing follows it. `learner_takes_missing`
//! is written when true or when a training summary follows it, and the
//! summary when there is one: a model without either writes the same bytes
//! as before the fields existed (derived `Deserialize` fills the missing
//! trailing fields with their defaults).

use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::FittedStrategy;

impl Serialize for FittedStrategy {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let with_missing = self.learner_takes_missing || self.training.is_some();
        let fields = 8 + usize::from(with_missing) + usize::from(self.training.is_some());
        let mut st = s.serialize_struct("FittedStrategy", fields)?;
        st.serialize_field("spec", &self.spec)?;
        st.serialize_field("schema", &self.schema)?;
        st.serialize_field("priors", &self.priors)?;
        st.serialize_field("members", &self.members)?;
        st.serialize_field("correct", &self.correct)?;
        st.serialize_field("rule", &self.rule)?;
        st.serialize_field("shift", &self.shift)?;
        st.serialize_field("fit", &self.fit)?;
        match with_missing {
            true => st.serialize_field("learner_takes_missing", &self.learner_takes_missing)?,
            false => st.skip_field("learner_takes_missing")?,
        }
        match &self.training {
            Some(t) => st.serialize_field("training", t)?,
            None => st.skip_field("training")?,
        }
        st.end()
    }
}
