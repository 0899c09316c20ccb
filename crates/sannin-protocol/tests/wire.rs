//! Each message serializes to the JSON value the server has always sent (the values
//! below are the server's hand-built JSON), and parses back to the same message.

use sannin_protocol::{
    AllianceState, ApiErrorBody, Channel, ChatMessage, ClockKind, ClockSettings, Clocks, ErrorCode,
    Event, ForfeitReason, LegalText, PlayerClock, RematchState, RoomDetails, RoomStatus,
    RoomSummary, RulesEvent, Seat, SeatInfo, SeatMove, Seats, ServerMsg, State, StateText,
};
use sannin_rules::{AllianceCause, EndReason, Outcome, Player};
use serde_json::{json, Value};

fn same(msg: &ServerMsg, want: Value) {
    let text = msg.to_text();
    let got: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(got, want, "{text}");
    assert_eq!(
        &ServerMsg::parse(&text).expect("parses back"),
        msg,
        "{text}"
    );
}

fn event(e: Event, want: Value) {
    same(
        &ServerMsg::event(9, e),
        json!({"type": "event", "seq": 9, "event": want}),
    );
}

fn clocks() -> Clocks {
    Clocks {
        settings: ClockSettings {
            kind: ClockKind::Byoyomi,
            main_ms: 600_000,
            increment_ms: 0,
            byoyomi_ms: 30_000,
            periods: 3,
        },
        running: Some(Seat::Middle),
        first: PlayerClock {
            remaining_ms: 0,
            periods: 2,
            period_ms: Some(30_000),
        },
        middle: PlayerClock {
            remaining_ms: 431_250,
            periods: 3,
            period_ms: Some(30_000),
        },
        last: PlayerClock {
            remaining_ms: 600_000,
            periods: 3,
            period_ms: Some(30_000),
        },
        deadline_ms: None,
    }
}

fn clocks_json() -> Value {
    json!({"kind": "byoyomi", "main_ms": 600000, "increment_ms": 0, "byoyomi_ms": 30000,
        "periods": 3, "running": "middle",
        "first": {"remaining_ms": 0, "periods": 2, "period_ms": 30000},
        "middle": {"remaining_ms": 431250, "periods": 3, "period_ms": 30000},
        "last": {"remaining_ms": 600000, "periods": 3, "period_ms": 30000}})
}

#[test]
fn direct_messages() {
    same(
        &ServerMsg::Seated {
            seat: Seat::Last,
            token: "ab".repeat(32),
        },
        json!({"type": "seated", "seat": "last", "token": "ab".repeat(32)}),
    );
    for code in ErrorCode::ALL {
        same(
            &ServerMsg::error(code, "why"),
            json!({"type": "error", "code": code.as_str(), "message": "why"}),
        );
    }
    same(&ServerMsg::Pong, json!({"type": "pong"}));
    let chat = ChatMessage {
        id: 7,
        channel: Channel::Spectators,
        seat: None,
        name: "Spectator".into(),
        account: None,
        text: "hi\nthere".into(),
        at_ms: 1_735_689_600_000,
    };
    let chat_json = json!({"id": 7, "channel": "spectators", "seat": null, "name": "Spectator",
        "account": null, "text": "hi\nthere", "at_ms": 1735689600000i64});
    let mut typed = chat_json.clone();
    typed["type"] = "chat".into();
    same(&ServerMsg::Chat(chat.clone()), typed);
    let players = ChatMessage {
        channel: Channel::Players,
        seat: Some(Seat::First),
        name: "Ann".into(),
        account: Some("Ann".into()),
        ..chat.clone()
    };
    same(
        &ServerMsg::ChatHistory {
            messages: vec![players, chat],
        },
        json!({"type": "chat_history", "messages": [
            {"id": 7, "channel": "players", "seat": "first", "name": "Ann", "account": "Ann",
             "text": "hi\nthere", "at_ms": 1735689600000i64},
            chat_json,
        ]}),
    );
}

#[test]
fn lead_events_with_and_without_clocks() {
    event(
        Event::Action {
            player: Seat::First,
            action: "P3c-4d".into(),
            clocks: None,
        },
        json!({"type": "action", "player": "first", "action": "P3c-4d"}),
    );
    event(
        Event::Action {
            player: Seat::First,
            action: "P3c-4d".into(),
            clocks: Some(clocks()),
        },
        json!({"type": "action", "player": "first", "action": "P3c-4d", "clocks": clocks_json()}),
    );
    event(
        Event::Resigned {
            player: Seat::Middle,
            clocks: None,
        },
        json!({"type": "resigned", "player": "middle"}),
    );
    for reason in [ForfeitReason::Abandoned, ForfeitReason::Timeout] {
        let mut e = Event::Forfeited {
            player: Seat::Last,
            reason,
            clocks: None,
        };
        event(
            e.clone(),
            json!({"type": "forfeited", "player": "last", "reason": reason.as_str()}),
        );
        e.set_clocks(clocks());
        assert_eq!(e.clocks(), Some(&clocks()));
        event(
            e,
            json!({"type": "forfeited", "player": "last", "reason": reason.as_str(), "clocks": clocks_json()}),
        );
    }
    event(
        Event::DrawAgreed { clocks: None },
        json!({"type": "draw_agreed"}),
    );
    event(
        Event::DrawAgreed {
            clocks: Some(clocks()),
        },
        json!({"type": "draw_agreed", "clocks": clocks_json()}),
    );
}

#[test]
fn room_events() {
    let moved = vec![
        SeatMove {
            from: Seat::Last,
            to: Seat::First,
        },
        SeatMove {
            from: Seat::First,
            to: Seat::Middle,
        },
    ];
    let moved_json = json!([{"from": "last", "to": "first"}, {"from": "first", "to": "middle"}]);
    let cases = vec![
        (
            Event::PlayerJoined {
                seat: Seat::First,
                name: "Ann".into(),
            },
            json!({"type": "player_joined", "seat": "first", "name": "Ann"}),
        ),
        (
            Event::PlayerLeft {
                seat: Seat::First,
                grace_seconds: 120.0,
            },
            json!({"type": "player_left", "seat": "first", "grace_seconds": 120.0}),
        ),
        (
            Event::GameAborted { seat: Seat::Last },
            json!({"type": "game_aborted", "seat": "last"}),
        ),
        (
            Event::PlayerReconnected { seat: Seat::Middle },
            json!({"type": "player_reconnected", "seat": "middle"}),
        ),
        (
            Event::SeatFreed { seat: Seat::Last },
            json!({"type": "seat_freed", "seat": "last"}),
        ),
        (
            Event::PlayerReady {
                seat: Seat::First,
                ready: false,
            },
            json!({"type": "player_ready", "seat": "first", "ready": false}),
        ),
        (Event::GameStarted, json!({"type": "game_started"})),
        (
            Event::AllianceProposed {
                from: Seat::First,
                to: Seat::Middle,
            },
            json!({"type": "alliance_proposed", "from": "first", "to": "middle"}),
        ),
        (
            Event::AllianceDeclined { by: None },
            json!({"type": "alliance_declined", "by": null}),
        ),
        (
            Event::AllianceDeclined {
                by: Some(Seat::Middle),
            },
            json!({"type": "alliance_declined", "by": "middle"}),
        ),
        (
            Event::AllianceAgreed {
                allies: [Seat::Middle, Seat::Last],
                first: Seat::First,
                moved: moved.clone(),
            },
            json!({"type": "alliance_agreed", "allies": ["middle", "last"], "first": "first", "moved": moved_json}),
        ),
        (
            Event::AllianceCancelled,
            json!({"type": "alliance_cancelled"}),
        ),
        (
            Event::DrawOffered { seat: Seat::First },
            json!({"type": "draw_offered", "seat": "first"}),
        ),
        (
            Event::DrawDeclined { seat: Seat::Middle },
            json!({"type": "draw_declined", "seat": "middle"}),
        ),
        (
            Event::DrawWithdrawn { seat: Seat::First },
            json!({"type": "draw_withdrawn", "seat": "first"}),
        ),
        (Event::DrawExpired, json!({"type": "draw_expired"})),
        (
            Event::RematchRequested { seat: Seat::Last },
            json!({"type": "rematch_requested", "seat": "last"}),
        ),
        (
            Event::RematchCancelled { seat: None },
            json!({"type": "rematch_cancelled", "seat": null}),
        ),
        (
            Event::RematchCancelled {
                seat: Some(Seat::First),
            },
            json!({"type": "rematch_cancelled", "seat": "first"}),
        ),
        (
            Event::RematchStarted {
                room: "5f0c".into(),
                moved,
            },
            json!({"type": "rematch_started", "room": "5f0c", "moved": moved_json}),
        ),
        (
            Event::BotAdded {
                seat: Seat::Last,
                level: 2,
                name: "Bot (level 2)".into(),
            },
            json!({"type": "bot_added", "seat": "last", "level": 2, "name": "Bot (level 2)"}),
        ),
        (
            Event::BotRemoved { seat: Seat::Last },
            json!({"type": "bot_removed", "seat": "last"}),
        ),
        (
            Event::BotTookOver {
                seat: Seat::Middle,
                level: 2,
            },
            json!({"type": "bot_took_over", "seat": "middle", "level": 2}),
        ),
        (
            Event::BotReleased { seat: Seat::Middle },
            json!({"type": "bot_released", "seat": "middle"}),
        ),
    ];
    for (e, want) in cases {
        assert_eq!(e.kind(), want["type"], "{want}");
        event(e, want);
    }
}

#[test]
fn rules_events_keep_the_rules_spelling() {
    // The voluntary alliance announced at the start is the rules' own event.
    let e = Event::from(RulesEvent::AllianceFormed {
        allies: [Player::Middle, Player::Last],
        cause: AllianceCause::Voluntary,
    });
    assert_eq!(e.kind(), "alliance_formed");
    event(
        e,
        json!({"type": "alliance_formed", "allies": ["Middle", "Last"], "cause": "voluntary"}),
    );
    let cell = "10k".parse().expect("a cell");
    event(
        Event::Rules(RulesEvent::Captured {
            cell,
            piece: sannin_rules::Role::Pawn,
            promoted: false,
            owner: Player::Middle,
            by: Player::First,
        }),
        json!({"type": "captured", "cell": "10k", "piece": "P", "promoted": false, "owner": "Middle", "by": "First"}),
    );
    event(
        Event::Rules(RulesEvent::GameOver {
            winners: vec![Player::First],
            reason: EndReason::LastPlayer,
        }),
        json!({"type": "game_over", "winners": ["First"], "reason": "last_player"}),
    );
    event(
        Event::Rules(RulesEvent::Mated {
            player: Player::Last,
            by: None,
        }),
        json!({"type": "mated", "player": "Last", "by": null}),
    );
}

fn state() -> State {
    let outcome = Outcome {
        winners: vec![Player::First],
        reason: EndReason::LastPlayer,
        ranking: vec![Player::First, Player::Last, Player::Middle],
    };
    State {
        seq: 12,
        room: "5f0c".into(),
        status: RoomStatus::Finished,
        position: "pos".into(),
        start_position: "start".into(),
        moves: Some(vec!["P3c-4d".into()]),
        seats: Seats {
            first: Some(SeatInfo {
                name: "Ann".into(),
                connected: true,
                ready: true,
                abandon_at_ms: None,
                bot: None,
                taken_over: false,
                account: Some("Ann".into()),
            }),
            middle: None,
            last: Some(SeatInfo {
                name: "Cid".into(),
                connected: true,
                ready: true,
                abandon_at_ms: Some(5),
                bot: Some(2),
                taken_over: true,
                account: None,
            }),
        },
        spectators: 1,
        to_move: None,
        legal: vec![],
        illumination: Some(vec!["7g".into()]),
        result: Some(outcome.clone()),
        outcome: Some(outcome),
        you: Some(Seat::Last),
        alliance: AllianceState {
            proposal: Some(SeatMove {
                from: Seat::First,
                to: Seat::Middle,
            }),
            agreed: false,
        },
        draw_offers: vec![Seat::Middle],
        takeback: Some(sannin_protocol::TakebackState {
            seat: Seat::First,
            accepted: vec![Seat::Last],
        }),
        grace_seconds: 1.5,
        now_ms: 1_735_689_600_000,
        first_move_by_ms: None,
        move_players: Some(vec![Seat::First]),
        in_check: vec![Seat::Last],
        clocks: Some(clocks()),
        private: true,
        bot_takeover: true,
        rated: true,
        paired: false,
        rematch: RematchState {
            requested: vec![Seat::First, Seat::Last],
            room: Some("6a1d".into()),
            of: None,
        },
    }
}

#[test]
fn the_state_snapshot() {
    let outcome = json!({"winners": ["First"], "reason": "last_player", "ranking": ["First", "Last", "Middle"]});
    let seat = |name: &str, at: Value, bot: Value, taken: bool, account: Value| json!({"name": name, "connected": true, "ready": true, "abandon_at_ms": at, "bot": bot, "taken_over": taken, "account": account});
    let mut s = state();
    same(
        &ServerMsg::state(s.clone()),
        json!({
            "type": "state", "seq": 12, "room": "5f0c", "status": "finished",
            "position": "pos", "start_position": "start", "moves": ["P3c-4d"],
            "seats": {"first": seat("Ann", Value::Null, Value::Null, false, json!("Ann")), "middle": null,
                      "last": seat("Cid", json!(5), json!(2), true, Value::Null)},
            "spectators": 1, "to_move": null, "legal": [], "illumination": ["7g"],
            "result": outcome, "outcome": outcome, "you": "last",
            "alliance": {"proposal": {"from": "first", "to": "middle"}, "agreed": false},
            "draw_offers": ["middle"],
            "takeback": {"seat": "first", "accepted": ["last"]}, "grace_seconds": 1.5, "now_ms": 1735689600000i64,
            "move_players": ["first"], "in_check": ["last"], "clocks": clocks_json(),
            "private": true, "bot_takeover": true, "rated": true, "paired": false,
            "rematch": {"requested": ["first", "last"], "room": "6a1d", "of": null},
        }),
    );
    // A spectator's view of a waiting room without a clock: the nulls are there.
    s.status = RoomStatus::Waiting;
    s.you = None;
    s.clocks = None;
    s.result = None;
    s.outcome = None;
    s.illumination = None;
    s.alliance = AllianceState::default();
    s.rematch = RematchState::default();
    let v = serde_json::to_value(ServerMsg::state(s)).expect("JSON");
    for key in ["you", "clocks", "result", "outcome", "illumination"] {
        assert_eq!(v[key], Value::Null, "{key}");
        assert!(v.as_object().expect("object").contains_key(key), "{key}");
    }
    assert_eq!(v["alliance"], json!({"proposal": null, "agreed": false}));
    assert_eq!(
        v["rematch"],
        json!({"requested": [], "room": null, "of": null})
    );
}

/// `to_text` writes a `state` by hand; its text must be serde's, byte for byte, for
/// every shape a state takes: each field's variants are drawn in turn (a fixed
/// sequence) over two thousand states, strings that need escaping included.
#[test]
fn a_state_written_by_hand_is_the_text_serde_writes() {
    let texts = [
        "",
        "Ann",
        "名人",
        "quote \" and \\ backslash",
        "back\\slash",
        "\u{1}",
        "\u{1f}",
        "line\nfeed\ttab\u{1}\u{1f}",
        "\u{7f} del, é, 🙂",
        "3k+B/p10/…",
        // Long enough to be looked at eight bytes at a time, each character to escape
        // at another place in its word.
        "eight by eight bytes, plain to the end",
        "0123456789abcdef\"",
        "0123456789abcde\\f",
        "0123456789abcd\u{1f}ef",
        "012345678\u{0}9abcdef",
        "0123456789\u{7f}abcdef~ ÿ名人🙂, none to escape",
        "名人名人名人名人 \n",
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut pick = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as usize) % n
    };
    let seats = [Seat::First, Seat::Middle, Seat::Last];
    let outcome = Outcome {
        winners: vec![Player::Middle],
        reason: EndReason::PleasureGarden,
        ranking: vec![Player::Middle, Player::First, Player::Last],
    };
    for i in 0..2000 {
        let mut s = state();
        let text = |pick: &mut dyn FnMut(usize) -> usize| texts[pick(texts.len())].to_string();
        s.seq = [0, 1, 12, u64::MAX][pick(4)];
        s.room = text(&mut pick);
        s.status = [
            RoomStatus::Waiting,
            RoomStatus::Playing,
            RoomStatus::Finished,
        ][pick(3)];
        s.position = text(&mut pick);
        s.start_position = text(&mut pick);
        s.moves = match pick(3) {
            0 => None,
            1 => Some(vec![]),
            _ => Some(vec![text(&mut pick), "P3c-4d".into()]),
        };
        s.move_players = match pick(3) {
            0 => None,
            1 => Some(vec![]),
            _ => Some(vec![seats[pick(3)], seats[pick(3)]]),
        };
        for seat in seats {
            *s.seats.get_mut(seat) = match pick(3) {
                0 => None,
                _ => Some(SeatInfo {
                    name: text(&mut pick),
                    connected: pick(2) == 0,
                    ready: pick(2) == 0,
                    abandon_at_ms: [None, Some(0), Some(-5), Some(i64::MAX)][pick(4)],
                    bot: [None, Some(0), Some(3), Some(255)][pick(4)],
                    taken_over: pick(2) == 0,
                    account: (pick(2) == 0).then(|| text(&mut pick)),
                }),
            };
        }
        s.spectators = [0, 7, u64::MAX][pick(3)];
        s.to_move = [None, Some(seats[pick(3)])][pick(2)];
        s.you = [None, Some(seats[pick(3)])][pick(2)];
        s.legal = (0..pick(4)).map(|_| text(&mut pick)).collect();
        s.illumination =
            [None, Some(vec![]), Some(vec!["7g".into(), text(&mut pick)])][pick(3)].clone();
        s.result = [None, Some(outcome.clone())][pick(2)].clone();
        s.outcome = [None, Some(outcome.clone())][pick(2)].clone();
        s.alliance = AllianceState {
            proposal: [
                None,
                Some(SeatMove {
                    from: seats[pick(3)],
                    to: seats[pick(3)],
                }),
            ][pick(2)],
            agreed: pick(2) == 0,
        };
        s.draw_offers = (0..pick(4)).map(|_| seats[pick(3)]).collect();
        s.takeback = (pick(2) == 1).then(|| sannin_protocol::TakebackState {
            seat: seats[pick(3)],
            accepted: (0..pick(3)).map(|_| seats[pick(3)]).collect(),
        });
        s.grace_seconds = [0.0, 1.5, 60.0, 0.1, 1e-7, 1e21, 12_345.678][pick(7)];
        s.now_ms = [0, -1, 1_735_689_600_000, i64::MIN][pick(4)];
        s.first_move_by_ms = [None, Some(1_735_689_630_000), Some(-5)][pick(3)];
        s.in_check = (0..pick(3)).map(|_| seats[pick(3)]).collect();
        s.clocks = match pick(5) {
            0 => None,
            k => {
                let mut c = clocks();
                c.settings.kind = [
                    ClockKind::SuddenDeath,
                    ClockKind::Fischer,
                    ClockKind::Byoyomi,
                    ClockKind::Correspondence,
                ][k - 1];
                c.deadline_ms = [None, Some(1_735_689_600_000)][pick(2)];
                c.settings.increment_ms = [0, 5_000][pick(2)];
                c.running = [None, Some(seats[pick(3)])][pick(2)];
                c.last.period_ms = [None, Some(0), Some(u64::MAX)][pick(3)];
                c.first.periods = [0, u32::MAX][pick(2)];
                Some(c)
            }
        };
        s.private = pick(2) == 0;
        s.bot_takeover = pick(2) == 0;
        s.rated = pick(2) == 0;
        s.paired = pick(2) == 0;
        s.rematch = RematchState {
            requested: (0..pick(4)).map(|_| seats[pick(3)]).collect(),
            room: [None, Some(text(&mut pick))][pick(2)].clone(),
            of: [None, Some(text(&mut pick))][pick(2)].clone(),
        };
        let msg = ServerMsg::state(s);
        assert_eq!(
            msg.to_text(),
            serde_json::to_string(&msg).expect("serde"),
            "state {i}"
        );
    }
    let msg = ServerMsg::state(state());
    assert_eq!(msg.to_text(), serde_json::to_string(&msg).expect("serde"));
}

/// Each seat's text made from the spectators' one is exactly the text of its own
/// state serialised whole, whatever the names hold.
#[test]
fn seat_texts_written_into_the_spectators_text_are_the_whole_states() {
    let names = [
        "Ann",
        r#""you":null"#,
        r#"","legal":[],"illumination":null,"x":""#,
        "名人 \\ \n \u{1}",
    ];
    let legals: [Vec<String>; 4] = [
        vec![],
        vec!["P3c-4c".into()],
        vec!["K10m-9l".into(), "P*5e".into(), "B4d-7g+".into()],
        // Not notation, but the list is JSON whatever it holds.
        vec![
            "a\"b".into(),
            "名 人".into(),
            "x\\y\n".into(),
            "+K7g!".into(),
        ],
    ];
    let illuminations = [
        None,
        Some(vec![]),
        Some(vec!["7g".to_string(), "8h".into()]),
    ];
    for (i, name) in names.iter().enumerate() {
        let mut base = state();
        base.you = None;
        base.illumination = None;
        base.room = (*name).into();
        if let Some(first) = base.seats.first.as_mut() {
            first.name = (*name).into();
        }
        if i % 2 == 1 {
            base.moves = None;
            base.move_players = None;
            base.clocks = None;
        }
        let text = StateText::new(base.clone());
        assert_eq!(text.spectator(), ServerMsg::state(base.clone()).to_text());
        for seat in [Seat::First, Seat::Middle, Seat::Last] {
            for legal in &legals {
                for illumination in &illuminations {
                    let whole = State {
                        you: Some(seat),
                        legal: legal.clone(),
                        illumination: illumination.clone(),
                        ..base.clone()
                    };
                    assert_eq!(
                        text.seat(seat, legal, illumination.as_deref()),
                        ServerMsg::state(whole).to_text(),
                        "{name} {seat:?} {legal:?} {illumination:?}"
                    );
                }
            }
        }
    }
}

/// A game's legal list written straight into JSON is the list serialised, move after
/// move of a game played to its end (the mover's list keeps changing in length and in
/// kinds of action: drops, promotions, captures).
#[test]
fn a_games_legal_text_is_its_legal_list_in_json() {
    let mut game = sannin_rules::Game::new();
    let mut ply = 0_usize;
    while let Some(p) = game.to_move() {
        let legal = game.legal_notation();
        assert_eq!(
            LegalText::of_game(&game).to_string(),
            serde_json::to_string(&legal).unwrap(),
            "ply {ply}"
        );
        // A spread of choices, the same every run.
        let pick = legal[(ply * 7 + 3) % legal.len()].clone();
        game.play_notation(p, &pick).unwrap();
        ply += 1;
        if ply == 400 {
            break;
        }
    }
    assert!(ply > 20, "a game long enough to mean something");
    if game.to_move().is_none() {
        assert_eq!(LegalText::of_game(&game).to_string(), "[]");
    }
}

#[test]
fn http_bodies() {
    let summary = json!({"id": "5f0c", "status": "playing",
        "seats": {"first": {"name": "Ann", "connected": true, "ready": false, "abandon_at_ms": null, "bot": null, "taken_over": false, "account": "Ann"},
                  "middle": {"name": "Bot (level 2)", "connected": true, "ready": true, "abandon_at_ms": null, "bot": 2, "taken_over": false, "account": null},
                  "last": null},
        "spectators": 0, "custom_position": false, "voluntary_alliance": false,
        "private": false,
        "clock": {"kind": "fischer", "main_ms": 300000, "increment_ms": 5000, "byoyomi_ms": 0, "periods": 0},
        "bot_takeover": false, "rated": false, "paired": false, "bots_only": false, "moves": 1, "result": null,
        "created_at_ms": 1735689600000i64, "updated_at_ms": 1735689601000i64});
    let s: RoomSummary = serde_json::from_value(summary.clone()).expect("a summary");
    assert_eq!(s.room.seats.get(Seat::Middle).and_then(|m| m.bot), Some(2));
    assert_eq!(s.moves, 1);
    assert_eq!(serde_json::to_value(&s).expect("JSON"), summary);
    // The details: the same object, but `moves` is the list of actions.
    let mut details = summary;
    let extra = json!({"position": "pos", "start_position": "start", "moves": ["P3c-4d"],
        "to_move": "middle"});
    for (k, v) in extra.as_object().expect("object") {
        details[k] = v.clone();
    }
    let d: RoomDetails = serde_json::from_value(details.clone()).expect("details");
    assert_eq!(d.room, s.room);
    assert_eq!(d.moves, ["P3c-4d"]);
    assert_eq!(d.to_move, Some(Seat::Middle));
    assert_eq!(serde_json::to_value(&d).expect("JSON"), details);
    let e: ApiErrorBody =
        serde_json::from_value(json!({"error": {"code": "room_not_found", "message": "no room"}}))
            .expect("an error body");
    assert_eq!(e.error.code, "room_not_found");
}

#[test]
fn unknown_messages_are_errors_not_guesses() {
    assert!(ServerMsg::parse(r#"{"type":"hello"}"#).is_err());
    assert!(ServerMsg::parse(r#"{"type":"event","seq":1,"event":{"type":"nope"}}"#).is_err());
    assert!(ServerMsg::parse(r#"{"type":"seated","seat":"First","token":"x"}"#).is_err());
    // Fields a newer server adds are ignored.
    assert_eq!(
        ServerMsg::parse(r#"{"type":"pong","extra":1}"#).expect("pong"),
        ServerMsg::Pong
    );
}

#[test]
fn display_is_the_text_frame() {
    let m = ServerMsg::error(ErrorCode::BadMessage, "why");
    assert_eq!(m.to_string(), m.to_text());
    let c = sannin_protocol::ClientMsg::Ping;
    assert_eq!(c.to_string(), r#"{"type":"ping"}"#);
}
