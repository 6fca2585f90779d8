use std::time::Duration;

use super::*;
use crate::jobs::job::{BlockSize, EngineKind, Rw};
use crate::jobs::reading::CurvePoint;

fn plan(text: &str) -> Plan {
    parse(text, Path::new("p.vdb"), &Sources::none()).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> String {
    parse(text, Path::new("p.vdb"), &Sources::none())
        .unwrap_err()
        .to_string()
}

const SEED_RAW: &str = "sd=sd1,lun=/dev/{device},openflags=o_direct\n\
                        wd=wd1,sd=sd*,seekpct=random,rdpct=50,xfersize=8192\n\
                        rd=rd1,wd=wd*,elapsed=300,interval=60,iorate=max\n";

#[test]
fn the_seed_raw_file_translates() {
    // As printed, the seed names a placeholder, which is no target.
    let err = error(SEED_RAW);
    assert!(err.contains("{device} is a placeholder"), "{err}");
    let p = plan(&SEED_RAW.replace("{device}", "sdb"));
    assert_eq!(p.jobs.len(), 1);
    let j = &p.jobs[0].job;
    assert_eq!(j.rw, Rw::RandRw);
    assert_eq!(j.read_pct, 50);
    assert_eq!(
        j.bs,
        vec![BlockSize {
            bytes: 8192,
            weight: 100
        }]
    );
    assert_eq!((j.threads, j.qd, j.engine), (8, 1, EngineKind::Sync));
    assert!(j.direct);
    assert_eq!(j.runtime, Some(Duration::from_secs(300)));
    assert_eq!(j.interval, Duration::from_secs(60));
    assert_eq!(j.rate_iops, None);
    assert_eq!(j.target.as_deref(), Some(Path::new("/dev/sdb")));
    assert_eq!(p.jobs[0].test.as_deref(), Some("rd1"));
    assert!(p.cannot_run.is_none());
}

#[test]
fn defaults_continuations_distributions_and_abbreviations() {
    let p = plan(
        "* comment\nsd=default,threads=4\nsd=sd1,lun=/tmp/a,size=1g\nsd=sd2,lun=/tmp/b,size=1g,\n  threads=2   trailing comment\n\
         wd=default,xf=(4k,50,64k,50)\nwd=wd1,sd=(sd1,sd2),seek=30,rdpct=70\n\
         rd=rd1,wd=wd1,iorate=1000,el=1m,in=5,warmup=10\n",
    );
    assert_eq!(p.jobs.len(), 2);
    let a = &p.jobs[0].job;
    assert_eq!(a.threads, 4);
    assert_eq!(p.jobs[1].job.threads, 2);
    assert_eq!(a.rw, Rw::RandRw);
    assert_eq!(a.random_pct, 30);
    assert_eq!(
        a.bs.iter().map(|b| b.bytes).collect::<Vec<_>>(),
        vec![4096, 65536]
    );
    assert_eq!(a.rate_iops, Some(500));
    assert_eq!(a.runtime, Some(Duration::from_secs(50)));
    assert_eq!(a.ramp, Duration::from_secs(10));
    assert_eq!(a.group, Some(0));
    assert_eq!(a.size_bytes, Some(1 << 30));
}

#[test]
fn for_loops_and_curves_make_several_runs() {
    let p = plan(
        "sd=sd1,lun=/tmp/a,size=1g\nwd=wd1,sd=sd1\n\
         rd=rd1,wd=wd1,iorate=max,elapsed=4,interval=1,forxfersize=(4k-16k,d),forrdpct=(0,100)\n\
         rd=rd2,wd=wd1,iorate=curve,curve=(50,100),elapsed=4,interval=1\n",
    );
    let tests: Vec<_> = p.jobs.iter().map(|j| j.test.clone().unwrap()).collect();
    assert_eq!(
        tests,
        vec![
            "rd1 (xfersize=4k rdpct=0)",
            "rd1 (xfersize=4k rdpct=100)",
            "rd1 (xfersize=8k rdpct=0)",
            "rd1 (xfersize=8k rdpct=100)",
            "rd1 (xfersize=16k rdpct=0)",
            "rd1 (xfersize=16k rdpct=100)",
            "rd2 max",
            "rd2 50%",
            "rd2 100%",
        ]
    );
    assert_eq!(p.jobs[0].job.rw, Rw::RandWrite);
    assert_eq!(p.jobs[5].job.bs[0].bytes, 16384);
    let point = p.jobs[7].curve.clone().unwrap();
    assert_eq!(
        (point.max_jobs.clone(), point.repeats, point.pct),
        (vec![6], 6, 50.0)
    );
    assert_eq!(point.rate(2345.0), 1200);
    let ten = CurvePoint { pct: 10.0, ..point };
    assert_eq!(ten.rate(2345.0), 240);
}

#[test]
fn bad_input_is_named() {
    assert_eq!(
        error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1,rdpct=150\nrd=rd1,wd=wd1,iorate=max\n"),
        "p.vdb:2:21: rdpct=150: 150 is not a percentage 0-100"
    );
    assert!(
        error("sd=sd1,lun=/tmp/a,size=4k\nwd=wd1,sd=sd1,xfersize=8k\nrd=rd1,wd=wd1,iorate=max\n")
            .contains("xfersize 8192 is larger than sd=sd1")
    );
    assert!(
        error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=disk*\nrd=rd1,wd=wd1,iorate=max\n")
            .contains("p.vdb:2:11: wd=wd1: sd=disk* matches no sd")
    );
    assert!(error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1\nrd=rd1,wd=wd9,iorate=max\n").contains("matches no wd"));
    assert!(error("sd=sd1,lun=/tmp/a,bogus=1\n").contains("unknown sd keyword 'bogus'"));
    assert!(error("sd=sd1,lun=/dev/sdb\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n").contains("o_direct"));
    assert!(
        error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1,xfersize=(4k,50,8k,40)\nrd=rd1,wd=wd1,iorate=max\n")
            .contains("add up to 90")
    );
    assert!(error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1\n").contains("no iorate="));
    assert!(error("sd=sd1,lun=(/tmp/a\n").contains("unmatched parenthesis"));
    assert!(
        error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=5,interval=2\n")
            .contains("multiples of interval")
    );
}

#[test]
fn found_by_fuzzing() {
    // A unit that is not ASCII once split a character in two.
    assert!(error("sd=sd1,lun=/tmp/a\nwd=wd1,sd=sd1,rdpct=5m`\u{fffd}\n").contains("not a number"));
}

#[test]
fn file_system_definitions_run_as_a_file_set() {
    let text = "fsd=fsd1,anchor=/bench,depth=1,width=1,files=1000,size=128k\n\
                fwd=default,xfersize=4k,fileio=random,fileselect=random,threads=8,\n\
                stopafter=100\n\
                fwd=fwd1,fsd=fsd1,operation=read\n\
                fwd=fwd2,fsd=fsd1,operation=write\n\
                rd=rd1,fwd=fwd*,fwdrate=max,format=yes,elapsed=300,interval=60\n";
    let p = plan(text);
    assert!(p.cannot_run.is_none());
    let [one] = p.jobs.as_slice() else {
        panic!("one job: {:?}", p.jobs)
    };
    let fs = one.job.workload.fileset().expect("a file-set job");
    assert_eq!(fs.mix.as_deref(), Some("read=50,write=50"));
    assert_eq!((fs.depth, fs.width, fs.files), (Some(1), Some(1), Some(1000)));
    assert_eq!(fs.file_size.as_deref(), Some("128k"));
    assert_eq!(fs.xfersize_bytes, Some(4096));
    assert_eq!(one.job.threads, 16);
    assert_eq!(one.job.runtime, Some(Duration::from_secs(300)));
    assert_eq!(one.job.interval, Duration::from_secs(60));
    assert_eq!(one.job.target.as_deref(), Some(Path::new("/bench")));
    assert!(p.warnings.iter().any(|w| w.contains("stopafter")));
    let weighted = text
        .replace(
            "fsd=fsd1,operation=write",
            "fsd=fsd1,operation=getattr,threads=24",
        )
        .replace("fwdrate=max", "fwdrate=500");
    let p = plan(&weighted);
    let fs = p.jobs[0].job.workload.fileset().unwrap();
    assert_eq!(fs.mix.as_deref(), Some("read=25,getattr=75"));
    assert_eq!(p.jobs[0].job.rate_iops, Some(500));
    let copy = text.replace("operation=write", "operation=copy");
    assert!(error(&copy).contains("operation=copy"), "{}", error(&copy));
    let bad = text.replace("fsd=fsd1,operation=read", "fsd=nope,operation=read");
    assert!(error(&bad).contains("fsd=nope matches no fsd"));
    // A set kura cannot make is refused where it is given, never made smaller.
    let deep = text.replace("depth=1", "depth=17");
    assert_eq!(error(&deep), "p.vdb:1:30: depth=17: must be between 0 and 16");
    let flat = text.replace("width=1", "width=0");
    assert!(error(&flat).starts_with("p.vdb:1:"), "{}", error(&flat));
    assert!(
        error(&flat).contains("width=0: must be between 1 and 100000"),
        "{}",
        error(&flat)
    );
}
