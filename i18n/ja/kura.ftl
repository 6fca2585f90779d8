# kura のメッセージ（日本語）。英語版 i18n/en/kura.ftl と同じ ID・同じ変数を持つ
# （src/i18n.rs のテストが確かめる）。単位 MB/s、IOPS、µs とテスト名
# （SEQ1M Q8T1 など）は CrystalDiskMark の日本語表示と同じく訳さない。

## どのページにも出る行 (src/report/runs.rs)
warning-prefix = 警告:{" "}
incomplete-line = 未完了: { stopped-early }
stopped-early = 実行は途中で止められた。数値は実行できた分だけのもの。
job-stopped-early = 未完了: 途中で停止
job-measuring = 測定中: 合計は終了時に出る
still-measuring-line = 測定中: 表示は今までに保存された分
run-label = {" "}· ラベル「{ $label }」

## 測った範囲 (src/report/span.rs)
span-kind-device = デバイス
span-kind-file = ファイル
span-all-device = { $size } のデバイス全体
span-file = { $size } のファイル
span-of = { $size } の{ $kind }
span-first = { $of }の先頭 { $span }
span-at = { $of }の { $offset } から { $span }

## CrystalDiskMark の表 (src/report/mark_grid.rs)
mark-test = テスト
mark-read = 読み込み
mark-write = 書き込み
mark-mix = 混合
mark-passes = { $passes ->
   *[other] { $passes } 回
}
mark-caption-best =
    表示: { $passes }の測定の最高値と最小レイテンシ（CrystalDiskMark 9 と同じ）
    （--figure mean: 平均値。KDiskMark の Default プロファイルと同じ）
mark-caption-mean =
    表示: { $passes }の測定の平均値（KDiskMark の Default プロファイルと同じ）
    （--figure best: 最高値と最小レイテンシ。CrystalDiskMark 9 と同じ）
mark-spread-note = ± = 測定のばらつき（最大 - 最小）/ 平均。MB/s = 10^6 バイト/秒。
mark-differences =
    CrystalDiskMark と意図して違う点: DiskSpd ではなく Linux の I/O（io_uring
    または pread/pwrite、O_DIRECT）を使う。準備の測定は最初の測定の前の
    ランプとして行う。テストファイルは 1 MiB の同じブロックの繰り返しではなく
    ランダムなデータで埋める。
mark-every-pass = 全測定とレイテンシのパーセンタイル: kura show { $id } --json
mark-run-id = 実行 { $id } ·{" "}
mark-engine = エンジン { $engine }
