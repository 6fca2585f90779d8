//! The eight tests of MySQL's sql-bench, as MariaDB's `sql-bench/` scripts
//! run them (test-ATIS.sh, test-alter-table.sh, test-big-tables.sh,
//! test-connect.sh, test-create.sh, test-insert.sh, test-select.sh,
//! test-wisconsin.sh; MariaDB server, the versions cited in docs/db.md).
//! Loop counts and row counts are sql-bench's times the run's scale (with
//! a floor so that every step runs); statements are sent one at a time in
//! autocommit mode, as sql-bench does without `--fast`, so every write is a
//! commit. Where kura differs on purpose is said at the step.

use super::session::{DbError, Session};
use crate::jobs::db_params::{DbParams, Test};

type R = Result<(), DbError>;

pub fn run(test: Test, s: &mut Session<'_>, p: &DbParams) -> R {
    match test {
        Test::Atis => atis(s, p),
        Test::AlterTable => alter_table(s, p),
        Test::BigTables => big_tables(s, p),
        Test::Connect => connect(s, p),
        Test::Create => create(s, p),
        Test::Insert => insert(s, p),
        Test::Select => select(s, p),
        Test::Wisconsin => wisconsin(s, p),
        Test::OltpReadWrite => Err(DbError::Setup("oltp_read_write is not a sql-bench test".into())),
    }
}

/// Tables a test left behind when it failed or was stopped, so the next test starts clean.
pub fn drop_leftovers(s: &mut Session<'_>, tables: &[&str]) {
    for t in tables {
        let _ = s.write(&format!("DROP TABLE IF EXISTS {t}"));
    }
}

/// Every table any test creates, for `drop_leftovers`.
pub const TABLES: &[&str] = &[
    "bench",
    "bench1",
    "bench2",
    "bench3",
    "onek",
    "tenk1",
    "tenk2",
    "Bprime",
    "aircraft",
    "airline",
    "airport",
    "city",
    "state",
    "flight",
    "fare",
    "flight_fare",
    "flight_day",
    "day_name",
    "month_name",
    "restrict_carrier",
    "ground_service",
];

// ---------------------------------------------------------------- create

/// test-create.sh: 400 tables created, each counted, each dropped; then
/// 10000 create+drop of a small table and of a table with 16 keys.
fn create(s: &mut Session<'_>, p: &DbParams) -> R {
    let tables = p.scaled(400, 2);
    let loops = p.scaled(10_000, 2);
    let double = s.dialect().double();
    let small = format!("(i int NOT NULL, d {double}, f float, s char(10), v varchar(100), primary key (i))");
    for i in 1..=tables {
        s.write(&format!("create table bench_{i} {small}"))?;
    }
    for i in 1..=tables {
        s.read(&format!("select count(*) from bench_{i}"))?;
    }
    for i in 1..=tables {
        s.write(&format!("drop table bench_{i}"))?;
    }
    for i in 1..=loops {
        s.write(&format!("create table bench_{i} {small}"))?;
        s.write(&format!("drop table bench_{i}"))?;
    }
    // 16 keys: a primary key of 16 parts and an index on each other field.
    let mut fields = vec![
        "field1 smallint not null".to_string(),
        "field2 int not null".into(),
        "field3 smallint not null".into(),
        "field4 char(16) not null".into(),
        "field5 integer not null".into(),
        "field6 float not null".into(),
        format!("field7 {double} not null"),
    ];
    fields.extend((8..=16).map(|i| format!("field{i} char(5) not null")));
    let pk: Vec<String> = (1..=16).map(|i| format!("field{i}")).collect();
    for i in 1..=loops {
        let name = format!("bench_{i}");
        s.write(&format!(
            "create table {name} ({}, primary key ({}))",
            fields.join(", "),
            pk.join(",")
        ))?;
        // sql-bench declares the keys inside CREATE TABLE; SQLite takes them as CREATE INDEX.
        for k in 2..=16 {
            s.write(&format!("create index {name}_index{k} on {name} (field{k})"))?;
        }
        s.write(&format!("drop table {name}"))?;
    }
    Ok(())
}

// ------------------------------------------------------------ alter-table

/// test-alter-table.sh: 1000 rows of 8 columns; columns added one ALTER at
/// a time up to 1000; 8 indexes created and dropped; columns dropped again.
fn alter_table(s: &mut Session<'_>, p: &DbParams) -> R {
    let start = 8u64;
    let rows = p.scaled(1000, 10);
    let fields = p.scaled(1000, start + 2).max(start + 2);
    let cols: Vec<String> = (1..=start).map(|i| format!("i{i} int not null")).collect();
    s.write(&format!("create table bench ({})", cols.join(", ")))?;
    for i in 0..rows {
        let values = vec![i.to_string(); start as usize].join(",");
        s.write(&format!("insert into bench values ({values})"))?;
    }
    for f in start + 1..=fields {
        s.write(&format!("ALTER TABLE bench ADD i{f} integer"))?;
    }
    for i in 1..=start {
        s.write(&format!("CREATE INDEX bench_ind{i} ON bench (i{i})"))?;
    }
    for i in 1..=start {
        let drop = s.dialect().drop_index(&format!("bench_ind{i}"), "bench");
        s.write(&drop)?;
    }
    for f in (start + 1..=fields).rev() {
        s.write(&format!("ALTER TABLE bench DROP i{f}"))?;
    }
    s.write("drop table bench")?;
    Ok(())
}

// ------------------------------------------------------------- big-tables

/// test-big-tables.sh: a table of 1000 int columns; 70000 times each:
/// select *, select every column by name, insert VALUES(), insert (columns) VALUES().
fn big_tables(s: &mut Session<'_>, p: &DbParams) -> R {
    let fields = 1000;
    let loops = p.scaled(70_000, 2);
    let names: Vec<String> = (1..=fields).map(|i| format!("i{i}")).collect();
    let defs: Vec<String> = names.iter().map(|n| format!("{n} int")).collect();
    let values = vec!["1"; fields].join(",");
    s.write(&format!("create table bench1 ({})", defs.join(",")))?;
    s.write(&format!("insert into bench1 values ({values})"))?;
    for _ in 0..loops {
        s.read("select * from bench1")?;
    }
    let all = format!("select {} from bench1", names.join(","));
    for _ in 0..loops {
        s.read(&all)?;
    }
    let insert = format!("insert into bench1 values({values})");
    for _ in 0..loops {
        s.write(&insert)?;
    }
    let insert = format!("insert into bench1 ({}) values({values})", names.join(","));
    for _ in 0..loops {
        s.write(&insert)?;
    }
    s.write("drop table bench1")?;
    Ok(())
}

// ---------------------------------------------------------------- connect

/// test-connect.sh: 50000 connects (alone, with a select, with a select of
/// a row), 500000 simple selects of each kind, and 50000 selects of a
/// 65000-byte blob.
fn connect(s: &mut Session<'_>, p: &DbParams) -> R {
    let loops = p.scaled(500_000, 10);
    let small = (loops / 10).max(1);
    for _ in 0..small {
        s.connect_disconnect()?;
    }
    for i in 0..small {
        s.reconnect()?;
        s.read(&format!("select {i}"))?;
    }
    for i in 0..loops {
        s.read(&format!("select {i}"))?;
    }
    for _ in 0..loops {
        s.read("select 10000")?;
    }
    s.write("create table bench1 (a int NOT NULL, i int, s char(10), primary key (a))")?;
    s.write("insert into bench1 values(1,100,'AAA')")?;
    for i in 0..small {
        s.reconnect()?;
        s.read(&format!("select a,i,s,{i} from bench1"))?;
    }
    for i in 0..loops {
        s.read(&format!("select a,i,s,{i} from bench1"))?;
    }
    for _ in 0..loops {
        s.read("select a,i,s from bench1")?;
    }
    s.write("insert into bench1 values(2,200,'BBB')")?;
    for i in 0..loops {
        s.read(&format!("select a,i,s,{i} from bench1"))?;
    }
    for i in 0..loops {
        s.read(&format!("select a+a+a+a+a+a+a+a+a+{i} from bench1"))?;
    }
    s.write("drop table bench1")?;
    s.write(&format!("create table bench1 (b {})", s.dialect().blob()))?;
    s.write_with(
        "insert into bench1 values(?)",
        &[super::session::Param::Text("A".repeat(65_000))],
    )?;
    for i in 0..small {
        s.read(&format!("select b,{i} from bench1"))?;
    }
    s.write("drop table bench1")?;
    Ok(())
}

// ----------------------------------------------------------------- insert

/// sql-bench's key shuffle (test-insert.sh "Generating random keys").
fn shuffled_keys(n: u64) -> Vec<u64> {
    let mut random: Vec<u64> = (0..n).map(|i| i + n).collect();
    let mut tmpvar: u64 = 1;
    for i in 0..n {
        tmpvar ^= ((tmpvar + 63) + i) * 3 % n;
        let swap = (tmpvar % n) as usize;
        random.swap(i as usize, swap);
    }
    random
}

/// test-insert.sh: 3 x 100000 rows inserted (in order, reverse, random),
/// 100000 duplicate inserts that must fail, key selects, ORDER BY scans,
/// key updates, updates of all rows, deletes by key and by range. Its
/// many-keys table and its joins, IN lists and INSERT ... SELECT are left out.
fn insert(s: &mut Session<'_>, p: &DbParams) -> R {
    let n = p.scaled(100_000, 100);
    let total = n * 3;
    let random = shuffled_keys(n);
    s.write("create table bench1 (id int NOT NULL, id2 int NOT NULL, id3 int NOT NULL, dummy1 char(30), primary key (id,id2))")?;
    s.write("create index ix_id3 on bench1 (id3)")?;
    let q = "insert into bench1 (id,id2,id3,dummy1) values";
    for i in 0..n {
        s.write(&format!("{q} ({i},{i},{i},'ABCDEFGHIJ')"))?;
    }
    for i in 0..n {
        let v = total - 1 - i;
        s.write(&format!("{q} ({v},{v},{v},'BCDEFGHIJK')"))?;
    }
    for &v in &random {
        s.write(&format!("{q} ({v},{v},{v},'CDEFGHIJKL')"))?;
    }
    let mut tmpvar: u64 = 1;
    for i in 0..n {
        tmpvar ^= ((tmpvar + 63) + i) * 3 % n;
        let t = tmpvar % total;
        s.write_must_fail(&format!("{q} ({t},{t},2,'D')"))?;
    }
    for &v in random.iter().skip(1) {
        s.read(&format!("select * from bench1 where id={v}"))?;
    }
    for _ in 0..10 {
        s.read("select id from bench1")?;
        s.read("select id,id2 from bench1 order by id,id2")?;
        s.read("select id,id2 from bench1 order by id desc, id2 desc")?;
        s.read("select id3 from bench1 order by id3")?;
    }
    let ranges = 500.min(n);
    for i in 1..=ranges {
        let start = n / ranges * i;
        s.read(&format!(
            "select dummy1,id3 from bench1 where id>={start} and id <= {} order by id3",
            start + i
        ))?;
    }
    // update_of_key: half of the keys, one statement (one commit) each.
    for &v in random.iter().take((n / 2) as usize) {
        let t = n + v;
        s.write(&format!("update bench1 set id3=-{t} where id3={t}"))?;
    }
    s.write("update bench1 set id3=0-id3 where id3<0")?;
    for i in 0..total {
        s.write(&format!(
            "update bench1 set dummy1='updated' where id={i} and id2={i}"
        ))?;
    }
    for i in 0..10 {
        s.write(&format!("update bench1 set dummy1='updated {i}'"))?;
    }
    for i in (0..n).step_by(10) {
        let t = n + random[i as usize];
        s.write(&format!("delete from bench1 where id3={t}"))?;
    }
    for i in (0..n).step_by((n / 10).max(1) as usize) {
        s.write(&format!("delete from bench1 where id3 >= 0 and id3 <= {i}"))?;
    }
    s.write(&format!("delete from bench1 where id3 < {total}"))?;
    s.write("drop table bench1")?;
    Ok(())
}

// ----------------------------------------------------------------- select

/// test-select.sh: 10000 rows with keys of many parts; query-cache probes,
/// big selects, min/max and count on keys, group by, count(distinct).
fn select(s: &mut Session<'_>, p: &DbParams) -> R {
    let rows = p.scaled(10_000, 100);
    let medium = p.scaled(7000, 5);
    let small = p.scaled(10, 1);
    let groups = 100;
    let regions = 6;
    s.write("create table bench1 (region char(1) NOT NULL, idn integer NOT NULL, rev_idn integer NOT NULL, grp integer NOT NULL, grp_no_key integer NOT NULL, primary key (region,idn))")?;
    s.write("create unique index bench1_rev on bench1 (region,rev_idn)")?;
    s.write("create unique index bench1_grp on bench1 (region,grp,idn)")?;
    let region = |i: u64| char::from(b'A' + (i % regions) as u8);
    for id in 0..rows {
        let grp = id * 3 % groups;
        s.write(&format!(
            "insert into bench1 values ('{}',{id},{},{grp},{grp})",
            region(id),
            rows - 1 - id
        ))?;
    }
    for _ in 0..rows {
        s.read("select sum(idn+100),sum(rev_idn-100) from bench1")?;
    }
    for t in 0..rows {
        s.read(&format!("select sum(idn+{t}),sum(rev_idn-{t}) from bench1"))?;
    }
    for i in 0..small {
        let grp = i * 11 % groups;
        let r = char::from(b'A' + (i % (regions + 1)) as u8);
        for q in [
            format!("select idn from bench1 where region='{r}'"),
            format!("select idn from bench1 where region='{r}' and idn={i}"),
            format!("select idn from bench1 where region='{r}' and rev_idn={i}"),
            format!("select idn from bench1 where region='{r}' and grp={grp}"),
            format!("select idn from bench1 where region>='B' and region<='C' and grp={grp}"),
            format!("select idn from bench1 where region>='B' and region<='E' and grp={grp}"),
            format!("select idn from bench1 where grp={grp}"),
        ] {
            s.read(&q)?;
        }
    }
    for t in 0..rows {
        let grp = t * 3 % groups;
        let r = region(t);
        for q in [
            "select min(region) from bench1".to_string(),
            "select max(region) from bench1".into(),
            format!("select min(rev_idn) from bench1 where region='{r}'"),
            format!("select max(grp) from bench1 where region='{r}'"),
            format!("select max(idn) from bench1 where region='{r}' and grp={grp}"),
            format!("select count(*) from bench1 where region='{r}'"),
            format!("select count(*) from bench1 where region='{r}' and grp={grp}"),
            format!("select count(*) from bench1 where region>'{r}'"),
        ] {
            s.read(&q)?;
        }
    }
    for _ in 0..medium {
        s.read("select grp,count(*) from bench1 group by grp")?;
        s.read("select grp_no_key,count(*) from bench1 group by grp_no_key")?;
        s.read("select grp_no_key,count(*) as cnt from bench1 group by grp_no_key order by cnt")?;
        s.read("select count(distinct region) from bench1")?;
        s.read("select count(distinct grp) from bench1")?;
        s.read("select region,count(distinct idn) from bench1 group by region")?;
    }
    s.write("drop table bench1")?;
    Ok(())
}

// -------------------------------------------------------------- wisconsin

const WISC_COLUMNS: &str = "unique1 int NOT NULL, unique2 int NOT NULL, two int, four int, ten int, \
twenty int, hundred int NOT NULL, thousand int, twothousand int, fivethous int, tenthous int, odd int, \
even int, stringu1 char(16), stringu2 char(16), string4 char(16)";

/// A Wisconsin string: seven significant letters from the number, padded with x.
fn wisc_string(n: u64) -> String {
    let mut s = String::new();
    let mut v = n;
    for _ in 0..7 {
        s.push(char::from(b'A' + (v % 26) as u8));
        v /= 26;
    }
    s.push_str("xxxxxxxxx");
    s
}

/// test-wisconsin.sh: tables onek, tenk1, tenk2 and Bprime loaded row by
/// row, Bprime cut to 1000 rows, then its query list, each SELECT run
/// 5000 times. sql-bench loads its Data/Wisconsin files; kura makes rows
/// of the same shape (unique1 a permutation, unique2 sequential).
fn wisconsin(s: &mut Session<'_>, p: &DbParams) -> R {
    let loops = p.scaled(5000, 2);
    let tenk = p.scaled(10_000, 200);
    let onek = p.scaled(1000, 20);
    for (t, i) in [("onek", 1), ("tenk1", 2), ("tenk2", 3), ("Bprime", 4)] {
        s.write(&format!("create table {t} ({WISC_COLUMNS})"))?;
        s.write(&format!("create unique index {t}_u1 on {t} (unique1)"))?;
        s.write(&format!("create unique index {t}_u2 on {t} (unique2)"))?;
        s.write(&format!("create index hundred{i} on {t} (hundred)"))?;
    }
    for (t, rows) in [("onek", onek), ("tenk1", tenk), ("tenk2", tenk), ("Bprime", tenk)] {
        let perm = shuffled_keys(rows);
        for u2 in 0..rows {
            let u1 = perm[u2 as usize] - rows;
            s.write(&format!(
                "insert into {t} values ({u1},{u2},{},{},{},{},{},{},{},{},{},{},{},'{}','{}','{}')",
                u1 % 2,
                u1 % 4,
                u1 % 10,
                u1 % 20,
                u1 % 100,
                u1 % 1000,
                u1 % 2000,
                u1 % 5000,
                u1 % 10000,
                (u1 % 100) * 2 + 1,
                (u1 % 100) * 2,
                wisc_string(u1),
                wisc_string(u2),
                ["AAAAxxx", "HHHHxxx", "OOOOxxx", "VVVVxxx"][(u2 % 4) as usize]
            ))?;
        }
    }
    s.write("delete from Bprime where Bprime.unique2 >= 1000")?;
    let selects = [
        "select * from tenk1 where (unique2 > 301) and (unique2 < 402)",
        "select * from tenk1 where (unique1 > 647) and (unique1 < 1648)",
        "select * from tenk1 where unique2 = 2001",
        "select t1.*, t2.unique1 AS t2unique1, t2.unique2 AS t2unique2 from tenk1 t1, tenk1 t2 where (t1.unique2 = t2.unique2) and (t2.unique2 < 1000)",
        "select t.*, B.unique1 AS Bunique1 from tenk1 t, Bprime B where t.unique2 = B.unique2",
        "select t1.*, o.unique1 AS ounique1 from onek o, tenk1 t1, tenk1 t2 where (o.unique2 = t1.unique2) and (t1.unique2 = t2.unique2) and (t1.unique2 < 1000) and (t2.unique2 < 1000)",
        "select two, four, ten, twenty, hundred, string4 from tenk1",
        "select * from onek",
        "select MIN(unique2) as x from tenk1",
    ];
    for q in selects {
        for _ in 0..loops {
            s.read(q)?;
        }
    }
    let cols = "(unique1, unique2, two, four, ten, twenty, hundred, thousand, twothousand, fivethous, tenthous, odd, even, stringu1, stringu2, string4)";
    let row =
        "0, 2, 0, 10, 50, 688, 1950, 4950, 9950, 1, 100, 'ron may choi', 'jae kwang choi', 'u. c. berkeley'";
    for w in [
        format!("insert into tenk1 {cols} values (10001, 74001, {row})"),
        format!("insert into tenk1 {cols} values (19991, 60001, {row})"),
        "delete from tenk1 where tenk1.unique2 = 877".into(),
        "delete from tenk1 where tenk1.unique2 = 876".into(),
        "update tenk1 set unique2 = 10001 where tenk1.unique2 =1491".into(),
        "update tenk1 set unique2 = 10023 where tenk1.unique2 =1480".into(),
        format!("insert into tenk1 {cols} values (20002, 70002, {row})"),
        format!("insert into tenk1 {cols} values (50002, 40002, {row})"),
        "delete from tenk1 where tenk1.unique2 = 10001".into(),
        "delete from tenk1 where tenk1.unique2 = 900".into(),
        "update tenk1 set unique2 = 10088 where tenk1.unique2 =187".into(),
        "update tenk1 set unique2 = 10003 where tenk1.unique2 =2000".into(),
        "update tenk1 set unique2 = 10020 where tenk1.unique2 =1974".into(),
        "update tenk1 set unique2 = 16001 where tenk1.unique2 =1140".into(),
    ] {
        s.write(&w)?;
    }
    for t in ["onek", "tenk1", "tenk2", "Bprime"] {
        s.write(&format!("drop table {t}"))?;
    }
    Ok(())
}

// ------------------------------------------------------------------- ATIS

/// test-ATIS.sh: the airline tables created and loaded row by row, then
/// its query groups (simple joins, a 3-way join, distinct, group by) run
/// 5000 times each. sql-bench loads its Data/ATIS files (29 tables); kura
/// makes 13 of them, shaped as the queries expect, with 579 flights and 534
/// fares times the scale (sql-bench's data does not scale).
fn atis(s: &mut Session<'_>, p: &DbParams) -> R {
    let loops = p.scaled(5000, 2);
    for t in ATIS_TABLES {
        s.write(&format!("create table {t}"))?;
    }
    atis_places(s)?;
    atis_flights(s, p.scaled(579, 20), p.scaled(534, 20))?;
    atis_calendar_and_rules(s)?;
    for group in ATIS_QUERIES {
        for _ in 0..loops {
            for q in group {
                s.read(q)?;
            }
        }
    }
    for t in ATIS_TABLES {
        let name = t.split_once(' ').map_or(t, |(name, _)| name);
        s.write(&format!("drop table {name}"))?;
    }
    Ok(())
}

/// The 13 ATIS tables kura makes, in the order they are made and dropped.
const ATIS_TABLES: [&str; 13] = [
    "state (state_code char(2) NOT NULL, state_name char(25) NOT NULL, country_name char(25) NOT NULL, primary key (state_code))",
    "city (city_code char(4) NOT NULL, city_name char(25) NOT NULL, state_code char(2) NOT NULL, country_name char(25) NOT NULL, time_zone_code char(3) NOT NULL, primary key (city_code))",
    "airport (airport_code char(3) NOT NULL, airport_name char(40) NOT NULL, state_code char(2) NOT NULL, country_name char(25) NOT NULL, time_zone_code char(3) NOT NULL, primary key (airport_code))",
    "airline (airline_code char(2) NOT NULL, airline_name char(64) NOT NULL, primary key (airline_code))",
    "aircraft (aircraft_code char(3) NOT NULL, aircraft_type char(64) NOT NULL, engines int NOT NULL, category char(10) NOT NULL, pay_load int NOT NULL, cruising_speed int NOT NULL, range_miles int NOT NULL, primary key (aircraft_code))",
    "flight (flight_code int NOT NULL, flight_number int NOT NULL, airline_code char(2) NOT NULL, aircraft_code char(3) NOT NULL, from_airport char(3) NOT NULL, to_airport char(3) NOT NULL, departure_time int NOT NULL, arrival_time int NOT NULL, time_elapsed int NOT NULL, stops int NOT NULL, primary key (flight_code))",
    "fare (fare_code char(8) NOT NULL, from_airport char(3) NOT NULL, to_airport char(3) NOT NULL, fare_class char(3) NOT NULL, one_way_cost int NOT NULL, rnd_trip_cost int NOT NULL, restrict_code char(5) NOT NULL, primary key (fare_code))",
    "flight_fare (flight_code int NOT NULL, fare_code char(8) NOT NULL, primary key (flight_code, fare_code))",
    "flight_day (flight_code int NOT NULL, day_code int NOT NULL, primary key (flight_code, day_code))",
    "day_name (day_code int NOT NULL, day_name char(9) NOT NULL, primary key (day_code))",
    "month_name (month_number int NOT NULL, month_name char(9) NOT NULL, primary key (month_number))",
    "restrict_carrier (restrict_code char(5) NOT NULL, airline_code char(2) NOT NULL, primary key (restrict_code, airline_code))",
    "ground_service (city_code char(4) NOT NULL, airport_code char(3) NOT NULL, transport_code char(1) NOT NULL, ground_fare int NOT NULL, primary key (city_code, airport_code, transport_code))",
];

/// ATIS's query groups: simple joins, a 3-way join, distinct, group by.
const ATIS_QUERIES: [&[&str]; 4] = [
    &[
        "select city.city_name,state.state_name,city.city_code from city,state where city.city_code='MATL' and city.state_code=state.state_code",
        "select city.city_name,state.state_name,city.city_code from state,city where city.state_code=state.state_code",
        "select month_name.month_name,day_name.day_name from month_name,day_name where month_name.month_number=day_name.day_code",
        "select month_name.month_name,day_name.day_name from month_name,day_name where month_name.month_number=day_name.day_code and day_name.day_code >= 4",
        "select flight.flight_code,aircraft.aircraft_type from flight,aircraft where flight.aircraft_code=aircraft.aircraft_code",
    ],
    &[
        "select airline.airline_name,aircraft.aircraft_type from aircraft,airline,flight where flight.aircraft_code=aircraft.aircraft_code and flight.airline_code=airline.airline_code",
        "select fare.fare_code from restrict_carrier,airline,fare where restrict_carrier.airline_code=airline.airline_code and fare.restrict_code=restrict_carrier.restrict_code",
    ],
    &[
        "select distinct category from aircraft",
        "select distinct from_airport from flight",
        "select distinct aircraft_code from flight",
        "select distinct * from fare",
        "select distinct flight_code from flight_fare",
        "select distinct airline.airline_name,aircraft.aircraft_type from flight,aircraft,airline where flight.aircraft_code=aircraft.aircraft_code and flight.airline_code=airline.airline_code",
    ],
    &[
        "select day_name.day_name,day_name.day_code,count(*) from flight_day,day_name where day_name.day_code=flight_day.day_code group by day_name.day_name,day_name.day_code order by day_name.day_code",
        "select sum(engines) from aircraft",
        "select avg(engines) from aircraft where engines>0",
        "select count(*),min(pay_load),max(pay_load) from aircraft where pay_load>0",
        "select min(flight_code),min(flight_code) from flight",
        "select count(*) from flight where flight_code >= 112793",
        "select city_code, avg(ground_fare) from ground_service where ground_fare<>0 group by city_code",
        "select category,count(*) from aircraft where engines=2 group by category having count(*)>4",
    ],
];

const ATIS_STATES: [&str; 11] = ["MA", "PA", "TX", "CA", "CO", "GA", "MD", "DC", "QC", "NY", "WA"];
const ATIS_CITIES: [&str; 11] = [
    "BBOS", "PPHL", "DDFW", "SSFO", "DDEN", "AATL", "BBWI", "WWAS", "MATL", "NNYC", "SSEA",
];
const ATIS_AIRPORTS: [&str; 9] = ["BOS", "PHL", "DFW", "SFO", "DEN", "ATL", "BWI", "DCA", "YUL"];

/// One of ATIS's 12 airline codes.
fn atis_airline(i: u64) -> String {
    format!("A{}", char::from(b'A' + (i % 12) as u8))
}

/// States, cities, airports, airlines and aircraft, row by row.
fn atis_places(s: &mut Session<'_>) -> R {
    for (i, st) in ATIS_STATES.iter().enumerate() {
        let country = if *st == "QC" { "CANADA" } else { "USA" };
        s.write(&format!(
            "insert into state values ('{st}','STATE {st}','{country}')"
        ))?;
        s.write(&format!(
            "insert into city values ('{}','CITY {i}','{st}','{country}','{}')",
            ATIS_CITIES[i],
            ["EST", "CST", "PST", "MST"][i % 4]
        ))?;
    }
    for (i, a) in ATIS_AIRPORTS.iter().enumerate() {
        s.write(&format!(
            "insert into airport values ('{a}','{a} INTERNATIONAL','{}','USA','{}')",
            ATIS_STATES[i],
            ["EST", "CST", "PST", "MST"][i % 4]
        ))?;
    }
    for i in 0..12 {
        s.write(&format!(
            "insert into airline values ('{}','AIRLINE {i}')",
            atis_airline(i)
        ))?;
    }
    for i in 0..22u64 {
        s.write(&format!(
            "insert into aircraft values ('{i:03}','AIRCRAFT TYPE {i}',{},'{}',{},{},{})",
            i % 4 + 1,
            [
                "JET",
                "PROPELLER",
                "TURBOPROP",
                "HELICOPTER",
                "AMPHIBIAN",
                "SEAPLANE"
            ][(i % 6) as usize],
            (i * 7919) % 30000,
            400 + i * 10,
            if i % 5 == 0 { 0 } else { 1000 + i * 100 }
        ))?;
    }
    Ok(())
}

/// `flights` flights with their days, `fares` fares, two fares a flight.
fn atis_flights(s: &mut Session<'_>, flights: u64, fares: u64) -> R {
    for f in 0..flights {
        let from = ATIS_AIRPORTS[(f % 9) as usize];
        let to = ATIS_AIRPORTS[((f / 9 + f + 1) % 9) as usize];
        let dep = (f * 37) % 2400;
        s.write(&format!(
            "insert into flight values ({},{},'{}','{:03}','{from}','{to}',{dep},{},{},{})",
            112_000 + f * 3,
            f % 1000,
            atis_airline(f),
            f % 22,
            (dep + 300) % 2400,
            60 + f % 300,
            f % 3
        ))?;
        for d in 0..3 {
            s.write(&format!(
                "insert into flight_day values ({},{})",
                112_000 + f * 3,
                (f + d * 2) % 7 + 1
            ))?;
        }
    }
    for c in 0..fares {
        s.write(&format!(
            "insert into fare values ('F{c:05}','{}','{}','{}',{},{},'R{:04}')",
            ATIS_AIRPORTS[(c % 9) as usize],
            ATIS_AIRPORTS[((c / 9) % 9) as usize],
            ["Y", "F", "B", "M", "H", "Q", "K"][(c % 7) as usize],
            100 + c * 3 % 900,
            200 + c * 5 % 1800,
            c % 40
        ))?;
    }
    for f in 0..flights {
        for k in 0..2 {
            s.write(&format!(
                "insert into flight_fare values ({},'F{:05}')",
                112_000 + f * 3,
                (f * 2 + k) % fares
            ))?;
        }
    }
    Ok(())
}

/// Day and month names, carrier restrictions and ground services.
fn atis_calendar_and_rules(s: &mut Session<'_>) -> R {
    for (i, d) in [
        "MONDAY",
        "TUESDAY",
        "WEDNESDAY",
        "THURSDAY",
        "FRIDAY",
        "SATURDAY",
        "SUNDAY",
    ]
    .iter()
    .enumerate()
    {
        s.write(&format!("insert into day_name values ({},'{d}')", i + 1))?;
    }
    for m in 1..=12 {
        s.write(&format!("insert into month_name values ({m},'MONTH {m}')"))?;
    }
    for r in 0..40 {
        s.write(&format!(
            "insert into restrict_carrier values ('R{r:04}','{}')",
            atis_airline(r)
        ))?;
    }
    for (i, c) in ATIS_CITIES.iter().enumerate() {
        s.write(&format!(
            "insert into ground_service values ('{c}','{}','T',{})",
            ATIS_AIRPORTS[i % 9],
            i * 5
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_shuffle_is_a_permutation_of_n_to_2n() {
        let mut keys = shuffled_keys(1000);
        assert_ne!(keys, (1000..2000).collect::<Vec<_>>());
        keys.sort();
        assert_eq!(keys, (1000..2000).collect::<Vec<_>>());
    }
}
