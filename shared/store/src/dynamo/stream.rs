//! The table's stream as the `events` function reads it: a record of DynamoDB Streams
//! (NEW_AND_OLD_IMAGES) in the JSON of the Lambda event (`Records[].dynamodb` with
//! `Keys`, `OldImage`, `NewImage`, `SequenceNumber`), read back into podium's items.
//! Only state items (a player's inbox) are of interest; every other record is `None`.

use serde_json::Value;

pub use crate::stream::{Change, ItemImages, StateImages};

fn string<'a>(map: &'a Value, name: &str) -> Option<&'a str> {
    map.get(name)?.get("S")?.as_str()
}

/// The state item a stream record's `dynamodb` part changed, if it is one (partition
/// key `PLAYER#{id}`, sort key `STATE#{name}`); `None` for every other item.
pub fn state_images(dynamodb: &Value) -> Option<StateImages> {
    let keys = dynamodb.get("Keys")?;
    let player_id = string(keys, "pk")?.strip_prefix("PLAYER#")?;
    let name = string(keys, "sk")?.strip_prefix("STATE#")?;
    let body = |image: &str| {
        dynamodb
            .get(image)
            .and_then(|i| string(i, "body"))
            .map(str::to_string)
    };
    Some(StateImages {
        player_id: player_id.to_string(),
        name: name.to_string(),
        old_body: body("OldImage"),
        new_body: body("NewImage"),
    })
}

/// A streamed opaque item ([`crate::stream::streamed_item`]: a board's current
/// snapshot pointer) as one stream record changed it: its body (the `B` attribute
/// `body`, base64 in the Lambda event's JSON) before and after; `None` for every other
/// item.
pub fn item_images(dynamodb: &Value) -> Option<ItemImages> {
    use base64::Engine as _;
    let keys = dynamodb.get("Keys")?;
    let (pk, sk) = (string(keys, "pk")?, string(keys, "sk")?);
    if !crate::stream::streamed_item(pk, sk) {
        return None;
    }
    let body = |image: &str| {
        let b64 = dynamodb.get(image)?.get("body")?.get("B")?.as_str()?;
        let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    Some(ItemImages {
        pk: pk.to_string(),
        sk: sk.to_string(),
        old_body: body("OldImage"),
        new_body: body("NewImage"),
    })
}

/// The change a stream record's `dynamodb` part carries, if the stream carries it
/// ([`crate::stream`]): a streamed state or a streamed item.
pub fn change(dynamodb: &Value) -> Option<Change> {
    if let Some(state) = state_images(dynamodb) {
        return crate::stream::STREAMED_STATES
            .contains(&state.name.as_str())
            .then_some(Change::State(state));
    }
    item_images(dynamodb).map(Change::Item)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_items_images_and_nothing_else() {
        let record = serde_json::json!({
            "Keys": {"pk": {"S": "PLAYER#p:1"}, "sk": {"S": "STATE#inbox"}},
            "NewImage": {"pk": {"S": "PLAYER#p:1"}, "sk": {"S": "STATE#inbox"}, "body": {"S": "{\"messages\":[]}"}, "version": {"N": "1"}},
            "SequenceNumber": "100"
        });
        let got = state_images(&record).expect("a state item");
        assert_eq!(
            (
                got.player_id.as_str(),
                got.name.as_str(),
                got.old_body,
                got.new_body.as_deref()
            ),
            ("p:1", "inbox", None, Some("{\"messages\":[]}"))
        );
        let balance = serde_json::json!({"Keys": {"pk": {"S": "PLAYER#p"}, "sk": {"S": "BALANCE#seega"}}});
        assert!(state_images(&balance).is_none());
        assert!(state_images(&serde_json::json!({})).is_none());
    }
}
