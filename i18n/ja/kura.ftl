# kura のメッセージ（日本語）。英語版 i18n/en/kura.ftl と同じ ID・同じ変数を持つ
# （src/i18n.rs のテストが確かめる）。単位 MB/s、IOPS、µs とテスト名
# （SEQ1M Q8T1 など）は CrystalDiskMark の日本語表示と同じく訳さない。

## どのページにも出る行 (src/report/runs.rs)
warning-prefix = 警告:{" "}
incomplete-line = 未完了: { stopped-early }
interleaved-line = 交互実行: 各パスは実行 { $runs } の同じパスと交互に測った
stopped-early = 実行は途中で止められた。数値は実行できた分だけのもの。
job-stopped-early = 未完了: 途中で停止
job-measuring = 測定中: 合計は終了時に出る
still-measuring-line = 測定中: 表示は今までに保存された分
run-label = {" "}· ラベル「{ $label }」

## 測った範囲 (src/report/span.rs)
span-kind-device = デバイス
span-kind-file = ファイル
span-kind-directory = ディレクトリ
span-all-device = { $size } のデバイス全体
span-file = { $size } のファイル
span-directory = { $size }
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
mark-spread-note = ± = 測定の範囲の半分、(最大 - 最小) / 2 / 値。MB/s = 10^6 バイト/秒。
mark-short-passes = パス { $pass }（プロファイルは { $profile }）: プロファイルどおりの値ではない
mark-differences =
    CrystalDiskMark と意図して違う点: DiskSpd ではなく Linux の I/O（io_uring
    または pread/pwrite、O_DIRECT）を使う。準備の測定は最初の測定の前の
    ランプとして行う。テストファイルは 1 MiB の同じブロックの繰り返しではなく
    ランダムなデータで埋める。
mark-every-pass = 全測定とレイテンシのパーセンタイル: kura show { $id } --json
mark-run-id = 実行 { $id } ·{" "}
mark-engine = エンジン { $engine }

## 警告 (src/metrics/warning.rs): 何が起きたか、どうすればよいか
warning-io-uring-unavailable = ここでは io_uring が使えない（{ $why }）ため sync エンジンを使う。コンテナは io_uring を塞ぐことが多い。深いキューで測るには seccomp で許可すること
warning-buffered-on-sync-engine = { $job }: バッファード I/O は sync エンジン（pread/pwrite、write() を呼ぶアプリケーションが見るもの）で実行され、スレッドごとに実行中の I/O は 1 つ。qd { $qd } は qd 1 で実行した（--engine io_uring ならバッファード I/O をキューに積み、カーネルがワーカースレッドに渡す）
warning-sync-engine-queue-depth = { $job }: sync エンジンはスレッドごとに実行中の I/O を 1 つしか持たない。qd { $qd } は qd 1 で実行した（実行中の I/O を増やすには --engine io_uring か、--threads を増やす）
warning-page-cache-holds-data = テストデータ { $data_mb } MB に対しバッファード I/O、マシンの RAM は { $memory_mb } MB: ページキャッシュに全部入るので、数値はデバイスではなくメモリを測っているかもしれない（--direct を使うか、RAM より大きいテストファイルを使う）
warning-keep-cache-with-direct = ダイレクト I/O では keep_cache は効かない（O_DIRECT はページキャッシュを通らない）。キャッシュから測るには --buffered --keep-cache を使う
warning-memory-file-system = { $path } は { $fs_type } 上にあり、ファイルをメモリに置く: 数値はストレージデバイスではなく RAM を測っている（テストファイルはデバイスのファイルシステムに置く）
warning-memory-file-system-direct = { $path } は { $fs_type } 上にあり、ファイルをメモリに置く: O_DIRECT を求め、ファイルシステムも受け入れたが、その下にデバイスはない。数値はストレージデバイスではなく RAM を測っている（テストファイルはデバイスのファイルシステムに置く）
warning-sparse-file = { $path } はスパースファイル: { $data_mb } MB のデータに対して領域は { $allocated_mb } MB しかない。穴の読み込みはデバイスを読まずにメモリからゼロを返す（先に全体を書き込むか、kura に新しいテストファイルを作らせる）
warning-sparse-file-loop = { $dev } は { $path } 上のループデバイス: { $path } はスパースファイルで、ループデバイスの元ファイルは { $data_mb } MB のデータに対して領域が { $allocated_mb } MB しかない。穴の読み込みはデバイスを読まずにメモリからゼロを返す（先に全体を書き込むか、kura に新しいテストファイルを作らせる）
warning-loop-over-memory = { $path } は { $fs_type } 上の { $backing } を元にしたループデバイス: 数値はストレージデバイスではなく RAM を測っている（ループデバイスはディスク上のファイルを元にする）
warning-memory-block-device = { $path } は RAM 上のブロックデバイス { $device }（zram か brd）: 数値はストレージデバイスではなくメモリを測っている（ディスクを指定する）
warning-compressed-fill = { $path } に fill { $fill }、{ $fs_type } は { $option } でマウントされている: 書いたパターンは圧縮で消え、デバイスが動かすバイト数は数値よりずっと少ない。--fill random を使う
warning-host-write-back-cache = { $path }（{ $size_mb } MB）はこの実行で { $disk } に書かれた。これはライトバックキャッシュを持つ仮想ディスクで、ファイルはこのマシンの RAM より小さい: ホストのキャッシュがデバイスより速く読み込みに応えるかもしれない（ホストのキャッシュより大きいファイルか、ずっと前に書いたファイルを使う）
warning-worker-stopped = { $job }: ワーカーが途中で止まった: { $error }。このジョブの数値は最後まで動いたワーカーの分だけ
warning-io-errors = { $job }: { $direction } のエラーが { $count } 件。最初: オフセット { $offset_bytes } で { $first_error }。数値は成功した I/O だけを数えている: 信用する前にデバイス（dmesg）とジョブを確かめること
warning-short-transfers = { $job }: 短い { $direction } が { $count } 件。それぞれ残りを再発行し、fio と同じく I/O は 1 回と数えた
warning-stalled = { $job }: I/O が止まった（{ $reasons }）: 数値はデバイスの定常速度ではない。デバイスへの他の負荷や帯域制限を探し、もう一度実行する
warning-repeats-disagree = { $test }{ $dir }: { $runs } 回の実行が { $spread_pct } % 食い違う（{ $min } から { $max } { $unit }）。デバイスが安定していない。実行回数を増やすか、実行時間を長くする
warning-passes-disagree = { $test }{ $dir }: { $runs } 回のパスが { $spread_pct } % 食い違う（{ $min } から { $max } { $unit }）。デバイスが安定していない。パスを増やすか、実行時間を長くする
warning-curve-point-skipped = { $job }: カーブの点 { $max_iops } I/O 毎秒の { $pct }% は { $min_iops } 未満。vdbench と同じく飛ばした
warning-test-file-not-removed = テストファイルを削除できなかった: { $error }。手で削除すること
warning-stopped-after-failure = 失敗したジョブの後で停止した: { $error }。それより前のジョブは保存済み。失敗を直し、残りのためにもう一度実行する
warning-run-unfinished = 実行が終わっていない: kura は終わりを保存する前に止まった（強制終了、クラッシュ、またはまだ実行中）。終わったジョブ { $finished_jobs ->
   *[other] { $finished_jobs } 件
}を保存した
warning-job-unfinished = { $job }: kura が止まったとき測定中だった。系列の { $periods ->
   *[other] { $periods } 区間
}を保存済み、合計はない
warning-series-coarsened = { $job }: 系列は間隔 { $interval } ではなく { $period } の区間 { $periods } 個になった: メモリを抑えるためジョブが持つ区間は最大 { $max } 個で、隣り合う区間をまとめた（レートと平均は両方にわたって、p99 は高い方）。すべての区間を残すには --interval { $period } にするか、実行時間を短くする
warning-stored-job-unreadable = この実行の保存済みジョブ { $index } を読めない: { $error }
warning-job-file = ジョブファイル: { $note }
warning-fio-flag = fio のフラグ: { $note }
warning-steady-stop-attained = { $job }: 計測開始から { $secs } 秒で { $rule } により定常に達したため、ジョブはそこで終了した（fio の定常状態停止）
warning-steady-stop-not-attained = { $job }: ジョブの終了までに { $rule } による定常に達しなかった。数値は全期間のもの
warning-page-cache-holds-data-under-limit = テストデータ { $data_mb } MB に対しバッファード I/O、メモリ上限は { $limit_mb } MB: それでもページキャッシュに全部入るので、数値はデバイスではなくメモリを測っているかもしれない（--mem-limit をデータより小さくするか、大きいテストファイルを使う）
warning-verify-passed = { $job }: verify が { $blocks ->
   *[other] { $blocks } ブロック
}を確かめ、すべて書いた通りだった
warning-verify-failed = { $job }: verify が確かめた { $blocks } ブロックのうち { $count ->
   *[other] { $count } ブロック
}が不正: 読み返したデータは書いたものと違う。{" "}
warning-verify-failed-more = 。ほか { $more } 件（全オフセットは JSON にある）
warning-verify-mismatch = オフセット { $offset_bytes }: { $field } は { $expected } のはずが { $found }
warning-verify-incomplete = { $job }: verify の読み返しが止まった: { $error }。それ以降のブロックは確かめていない
warning-verify-checked-nothing = { $job }: verify は 1 ブロックも確かめていない: 読んだ中に、このジョブが書いたブロックもジャーナルにあるブロックもなかった。データについては何もわからない（終了コード 1）
warning-journal-not-written = { $job }: フラッシュの後で verify のジャーナルを更新できなかった（{ $error }）。フラッシュした分より少なく記録しているので、それを使う verify が確かめる範囲も少ない
warning-max-errors-reached = { $job }: エラー { $errors } 件で停止した（max_errors { $max }）。それまでに測った分は残す
warning-reads-of-zeros = { $path }: 範囲全体から抜き出した { $sampled } ブロックのうち { $zero_blocks } ブロックがゼロを読んだ（未書き込み、trim 済み、またはゼロを書いた）: シンプロビジョニング、圧縮・重複排除するストレージ、未割り当てブロックの SSD は媒体を読まずにこうした読み込みに応えるので、数値はデバイス本来よりずっと良く見えるかもしれない（先に範囲をランダムなデータで書く）
warning-compressible-data = { $path } に fill { $fill }: これほど圧縮できるデータは、圧縮や重複排除をするデバイスやボリューム（SSD コントローラ、ZFS、VDO、シンボリューム、ストレージアレイ）では安く保存されるので、書き込みが実際より速く見えるかもしれない。--fill random を使う
warning-unreachable-cache = { $path } は { $fs_type } 上にあり、{ $why }: 数値はストレージではなくそのキャッシュから来ているかもしれない（サーバー上で測るか、そのメモリより大きいデータで測る）
warning-in-container = kura はコンテナ内で動いている（{ $runtime }）: バッファード I/O はホストのページキャッシュを他のすべてと共有し、キャッシュできる量はコンテナのメモリ上限で決まり、その下のキャッシュ（overlay の層、ボリューム）には手が届かない。--direct を使うか、--mem-limit でキャッシュの大きさを固定する
warning-above-interface = { $job }: { $path } で { $mb_per_s } MB/s だが、{ $device } のリンク（{ $interface } は最大 { $limit_mb_per_s } MB/s）ではそれだけ運べない: データはリンクを通らず、キャッシュ（ページキャッシュかデバイス自身のもの）から来た
warning-writes-ahead-of-device = { $job }: { $path } への書き込みは { $mb_per_s } MB/s だったが、ジョブの後にそれを永続化するのにさらに { $flush_s } 秒かかった。フラッシュを含めると { $durable_mb_per_s } MB/s。ライトバックキャッシュ（仮想ディスクならホストのもの、バッファ付き書き込みならページキャッシュ）がデバイスより速く受け取った: キャッシュより多く書くか、--end-fsync でフラッシュも測る
warning-reads-not-on-device = { $job }: 読み込み: kura は { $read }、{ $device } に届いたのは { $reached }: デバイスではなくページキャッシュが応えた。デバイスの速度にはメモリより多く読むか、--direct か --mem-limit を使う
warning-reads-not-on-device-under = { $job }: 読み込み: kura は { $read }、{ $device }（{ $holders } の下）に届いたのは { $reached }: デバイスではなくその上のキャッシュ（ページキャッシュ。ループデバイスの下なら、バッキングファイルのホスト側キャッシュ）が応えた。デバイスの速度にはメモリより多く読むか、--mem-limit を使うか、ループデバイスに --direct-io=on を与える
warning-host-write-back-writes = { $path } への直接書き込みは、書き込みをキャッシュするホスト上の仮想ディスク { $disk } に行き、ジョブ後のフラッシュで書くものが残らなかった: ホストが書き込みをメモリに受け取り、フラッシュにすぐ応えた（あるいはデバイスがジョブと同じだけ速い。ゲストからは区別できない）。書き込み速度はホストのメモリかもしれず、パスごとの食い違いはそのキャッシュが満ちては空くためである。デバイス自身の速度には、ホストがキャッシュできるより多く書く（実行時間を長く、サイズを大きく）
warning-file-ops-skipped = { $job }: { $count ->
   *[other] { $count } 件の操作
}が必要な状態のファイルを見つけられなかった（全ファイルが消えた後の削除、1 つもない作成）: ミックスは求めたより少ない数で実行された。セットのファイルを増やす
warning-measuring = まだ測定中（kura プロセス { $pid }）: 表示は今までに保存された分で、系列は 1 区間ずつ増える。いま測定中のジョブの合計は終了時に出る
warning-database-in-memory = テストの間、データベースのディレクトリは最大 { $data_mb } MB、マシンの RAM は { $memory_mb } MB: SELECT はメモリから応え、コミット（fsync）だけがストレージに届いた。RAM より大きい --scale か --table-size なら読み込みもストレージに届く
warning-short-span-on-rotational = { $path } は回転ディスクで、{ $device_mb } MB のうち { $span_mb } MB で測った: シークがこれほど短いとランダム I/O はディスク全体より速くなる（--size を指定してもっと広く測る）
warning-below-min-rate = { $job }: スレッド { $thread } が停止した: { $what }（fio の rate_min/rate_iops_min はジョブを失敗させる）。最小値を下げるか、デバイスを遅くした原因を調べる

## compare の助言 (src/report/compare/guidance.rs)
class-sequential-large = シーケンシャル中心（大きなシーケンシャルブロック）
class-random-small-qd1 = 小さな I/O（小さなランダムブロック、キュー深さ 1）
class-random-small-deep = ランダム中心（小さなランダムブロック、深いキュー）
class-mixed = 読み書き混合
class-all = 全行
metric-mbps = MB/s
metric-iops = IOPS
metric-mbps-or-ops = MB/s（バイトを転送しない操作は ops/s）
metric-lat-mean = 平均レイテンシ
metric-lat-p99 = p99 レイテンシ
guidance-not-measured = { $title }: { $tn } と { $bn } の両方で測った比較できる行がない。
guidance-one-row = 1 行
guidance-rows = { $n } 行、{ $lo } 倍から { $hi } 倍
guidance-rows-overlapping = { $rows }、うち { $n } 行は{ $unit ->
        [runs] 実行
       *[passes] パス
    }が重なる
guidance-within-noise = { $title }: 実行からは { $tn } と { $bn } を区別できない: どの行も{ $unit ->
        [runs] 実行
       *[passes] パス
    }が重なり、順位検定で差が見つからない（{ $rows }）
guidance-same = { $title }: { $tn } と { $bn } の { $by } の差は { $pct } % 以内（{ $g } 倍、{ $rows }）
guidance-mixed = { $title }: どちらかが常に速いわけではない: { $tn } が速い行が { $better }、{ $bn } が速い行が { $worse }（{ $by } で、幾何平均 { $g } 倍、{ $rows }）
guidance-better = { $title }: { $by } で { $tn } は { $bn } の { $g } 倍速い（{ $rows }）
guidance-worse = { $title }: { $by } で { $bn } は { $tn } の { $g } 倍速い（{ $rows }）
guidance-per-throughput = { $cur }/月あたりの { $by }
guidance-per-performance = { $cur }/月あたりの性能（{ $by } で）
guidance-same-value = 性能あたりの費用はほぼ同じ
guidance-cheaper = 性能あたりでは { $who } が安い
guidance-price = 。{ $bn } の { $p } 倍の価格で、{ $tn } は { $v } 倍の{ $per }を出す: { $who }
guidance-end = 。
guidance-pick = この用途には { $who } を選ぶ。
guidance-pick-faster-cheaper = { $who } を選ぶ: 速く、性能あたりも安い。
guidance-pick-faster-dearer = 速さなら { $who }、費用あたりの性能なら { $other }。
guidance-pick-by-direction = 一つには決まらない: 読み込み中心なら { $reads }、書き込み中心なら { $writes }。
guidance-pick-none = 一つには決まらない: 上の行のうち自分の負荷に合うもので選ぶ。
guidance-pick-cheaper = どちらでもよい。性能あたりでは { $who } が安い。
guidance-pick-either = どちらでもよい。
guidance-too-few = { $title }: { $by } で { $fast } は { $slow } の { $g } 倍速いと測られたが、片側 { $have } { $unit ->
        [runs] 実行
       *[passes] パス
    }では 5 % 水準で区別できない。{ $need } あれば区別できる（{ $rows }）
guidance-unranked = { $title }: { $by } で { $fast } は { $slow } の { $g } 倍速いと測られた（{ $rows }）が、順位は付けない: { $why }
guidance-flagged = { $who } の実行には注意が付いている（{ $why }）
guidance-same-target = { $tn } と { $bn } は同じ対象（{ $what }）
same-target-device = 同じブロックデバイス { $dev }、{ $volume }
same-target-file-system = デバイス { $dev } 上の同じファイルシステム、{ $volume }
pick-line = { $title }: { $sentence }
pick-cheapest = { $list } のどれも他より速いとは示されず、最も安いのは { $who }。{ $who } を選ぶ。
pick-too-few = まだ選べない: 片側 { $have } { $unit ->
        [runs] 実行
       *[passes] パス
    }では { $list } を区別できない。{ $need } あれば区別できる。
pick-either = 選ばない: 実行からは { $list } を区別できない。どれでもよい。
pick-same-target = 選ばない: { $list } は同じ対象。
pick-circle = 選ばない: { $list } はそれぞれ別の相手に勝つ。上の行のうち自分の負荷に合うもので選ぶ。
pick-all-flagged = 選ばない: すべての対象の実行に注意が付いている。
pick-alone = 選ばない: 注意の付いていない実行は { $who } だけで、比べる相手がない。
pick-left-out = {" "}除外: { $list }。
pick-not-interleaved = （実行は交互ではない: その間の機械の変動も差に見える。`kura mark A B --runs 5` は交互に測る。）
pick-void-memory = データがメモリ上にあった
pick-void-writes-ahead = 書き込みがデバイスより先行した
pick-void-stalled = 止まった
pick-void-stopped = 途中で止まった
pick-void-errors = I/O エラーがあった
pick-void-short = 測定時間が短すぎた

## compare の表 (src/report/compare/render.rs)
compare-by-test = テスト
compare-by-bs = ブロックサイズ
compare-by-mix = 読み書き比
compare-higher-is-better = 高いほど良い
compare-lower-is-better = 低いほど良い
compare-headline = kura compare · { $metric }（{ $better }）{ $figure } · 基準 { $baseline } · 行は{ $by }ごと
compare-target = 対象
compare-run-ids = 実行 ID
compare-path = パス
compare-host = ホスト
compare-price = 価格
compare-per-month = 月額
compare-price-ratio = 価格比
compare-baseline-name = { $name }（基準）
compare-not-comparable = 比較できない: { $why }
compare-not-comparable-ref = 比較できない [{ $n }]
compare-noise = { $ratio } 倍（重なり）
compare-nothing-completed = 完了した操作なし
compare-row-in-ops = { $label }（ops/s）
compare-legend-ratios = 比は { $metric } の 対象 / { $baseline }。{ $better }。
compare-legend-interleaved = 交互実行: { $targets } を交互に { $passes } パスずつ測った。各対象の i 番目のパスは並んで走ったので、マシンの揺らぎはどれにも同じように掛かる
compare-legend-repetitions = 値は{ $figure }（繰り返し: mark の実行のパス、または --repeats で同じラベルの実行）。± は範囲の半分。
compare-legend-runs = 値は{ $figure }: --repeats で取った同じラベルの実行は、一つの測定の繰り返し。
compare-legend-spread = ± は範囲の半分。
compare-legend-passes = 値は各テストの{ $figure }。
compare-legend-rank-test = { $unit ->
        [runs] 実行
       *[passes] パス
    }は基準の{ $unit ->
        [runs] 実行
       *[passes] パス
    }と両側 Mann-Whitney U 検定（小標本では正確な分布）で { $pct } % 水準で比べる。「（重なり）」は{ $unit ->
        [runs] 実行
       *[passes] パス
    }が重なり差が見つからない比。片側 3 { $unit ->
        [runs] 実行
       *[passes] パス
    }では p は 0.1 未満にならない: そこで印のない比は、一方のどの{ $unit ->
        [runs] 実行
       *[passes] パス
    }も他方のどの{ $unit ->
        [runs] 実行
       *[passes] パス
    }より良かったということ。
compare-legend-rank-test-marked = { $unit ->
        [runs] 実行
       *[passes] パス
    }は基準の{ $unit ->
        [runs] 実行
       *[passes] パス
    }と両側 Mann-Whitney U 検定（小標本では正確な分布）で { $pct } % 水準で比べる。「~」は{ $unit ->
        [runs] 実行
       *[passes] パス
    }が重なり差が見つからない比。片側 3 { $unit ->
        [runs] 実行
       *[passes] パス
    }では p は 0.1 未満にならない: そこで印のない比は、一方のどの{ $unit ->
        [runs] 実行
       *[passes] パス
    }も他方のどの{ $unit ->
        [runs] 実行
       *[passes] パス
    }より良かったということ。
compare-figure-best = パスの最良値
compare-figure-mean = パスの平均
compare-figure-best-run = 実行の最良値
compare-figure-mean-runs = 実行の平均
compare-test-file = テストファイル { $size }
compare-legend-mbps = MB/s = 10^6 バイト/秒。
compare-legend-prices = 価格あたりの値は通貨単位・月あたり。価格あたりの比は性能比を価格比で割ったもの。
compare-no-rows = 測定された行がない
compare-guidance = 助言（上の測定された行から）:

## 列見出しと表の題 (src/i18n.rs `heading`)
col-id = ID
col-run = 実行
col-runs = 実行
col-label = ラベル
col-date = 日時
col-date-utc = 日時 (UTC)
col-suite = スイート
col-host = ホスト
col-hosts = ホスト
col-hostname = ホスト名
col-jobs = ジョブ数
col-job = ジョブ
col-price = 価格
col-status = 状態
col-targets = 対象
col-target = 対象
col-path = パス
col-kind = 種類
col-device = デバイス
col-model = モデル
col-rotational = 回転
col-size = 容量
col-block = ブロック
col-block-size = ブロックサイズ
col-created-by-kura = kura が作成
col-engine = エンジン
col-kernel = カーネル
col-cores = コア
col-memory = メモリ
col-results-per-job-and-direction = ジョブと方向ごとの結果
col-compared-targets = 比べた対象
col-test = テスト
col-workload = 負荷
col-direction = 方向
col-ops = 操作
col-errors = エラー
col-lat-min = 最小遅延
col-lat-mean = 平均レイテンシ
col-mean = 平均
col-mean-latency = 平均レイテンシ
col-stddev = 標準偏差
col-max = 最大
col-percentile = パーセンタイル
col-figure = 値
col-spread = ばらつき
col-operation = 操作
col-share = 割合
col-step = 段
col-phase = 段階
col-offered = 要求
col-offered-iops = 要求 IOPS
col-achieved-iops = 達成 IOPS
col-bound = 上限
col-rank = ランク
col-start-skew = 開始のずれ
col-stop-skew = 終了のずれ
col-score = スコア
col-relative = 相対
col-note = 注記
col-lower-bound = 下限値
col-ratio = 比
col-repetitions = 繰り返し
col-threads = スレッド
col-per-month = 月額
col-price-ratio = 価格比

## HTML レポート (src/report/html/)
html-made-by = kura { $version } で { $date } に作成。MB/s = 10^6 バイト/秒、MiB/s = 2^20 バイト/秒。レイテンシは各 I/O の発行から完了まで。
html-title-runs = kura · { $count } 件の実行: { $names }
html-summary = 概要
html-banner-errors = { $name }: I/O エラー { $errors } 件。errno とオフセットは下のジョブを見ること。
html-no-warnings = 警告なし。
html-warnings = 警告
html-comparison = 比較
html-guidance = 助言（測定された行から）
html-jobs = ジョブ
html-latency-bound = レイテンシ上限つきの処理能力
html-sweep = ブロックサイズのスイープ
html-suite-tables = スイートの表
html-db = データベース（sql-bench、sysbench oltp_read_write）
html-compare-note = kura compare と同じ比べ方: 基準は { $baseline }。行はスイートのテストで、なければ同じ負荷で対応させる。値は、すべて mark の実行ならパスの最良値（CrystalDiskMark の値）、そうでなければ繰り返しの平均。
html-compare-chart = 行ごとの各実行の { $metric }（{ $baseline } に対する比）。1 より大きければ速い。パラメータの違う行には棒がない。
html-mark-size = { $size } のテストファイル
html-mark-chart = テストごとの{ $dir }速度。{ $runs } 回の最高値、対象ごとに 1 色。
html-mark-table = CrystalDiskMark、{ $size }: 最高 MB/s
html-mark-table-dir = CrystalDiskMark、{ $size }、{ $dir }: 最高 MB/s
html-latency-over-time = レイテンシの推移 · { $title }
html-latency-over-time-caption = 各区間に完了した I/O の平均と 99 パーセンタイルのレイテンシ。読み書き合算。
html-latency-percentiles = レイテンシのパーセンタイル · { $title }
html-latency-percentiles-caption = p99.999 までの各パーセンタイルのレイテンシ。保存した HDR ヒストグラムから（誤差 0.1 % 以内）。p50、p99、p99.9、p99.999 に値を記す。
html-latency-histogram = レイテンシのヒストグラム · { $title }
html-latency-histogram-caption = レイテンシ別の I/O の割合。1 桁あたり { $bins } 区分、保存した HDR ヒストグラムから。
html-iops-caption = { $period } の区間ごとに完了した毎秒の I/O 数。
html-percentiles-table = { $title }: レイテンシのパーセンタイル

## 実行の端末レポート (src/report/run_table.rs)
target-file = ファイル
target-directory = ディレクトリ
target-block-device = ブロックデバイス
target-on = { $dev } 上
target-rotational = 回転ディスク
target-non-rotational = 非回転ディスク
device-target = デバイス { $devices }
device-under = 。その下 { $devices }
device-counts = { $device }: 読み込み { $read }、書き込み { $written }、稼働 { $busy }
device-amplification = （kura の { $ratio } 倍）
device-per-op = （1 操作 { $bytes }）
device-by-test = デバイス（カーネルの計数）:
bonnie-test-put-char = シーケンシャル出力 文字単位
bonnie-test-put-block = シーケンシャル出力 ブロック
bonnie-test-rewrite = シーケンシャル出力 書き換え
bonnie-test-get-char = シーケンシャル入力 文字単位
bonnie-test-get-block = シーケンシャル入力 ブロック
bonnie-test-seeks = ランダムシーク
bonnie-test-seq-create = シーケンシャル作成 作成
bonnie-test-seq-stat = シーケンシャル作成 読み込み
bonnie-test-seq-delete = シーケンシャル作成 削除
bonnie-test-rand-create = ランダム作成 作成
bonnie-test-rand-stat = ランダム作成 読み込み
bonnie-test-rand-delete = ランダム作成 削除
job-on = {"  "}対象{" "}
job-measured = エンジン { $engine }、測定 { $elapsed } 秒{ $ramp }、CPU ユーザー { $user } 秒、システム { $system } 秒{ $syncs }
job-ramp = （ランプ { $ramp } 秒の後）
job-in-flight = 、同期以外の I/O は平均 { $n } 件が処理中
direction-latency = { $direction } レイテンシ
facts-host = ホスト { $host }
facts-price = 価格 { $price }
facts-suite = スイート { $suite }
run-id = 実行 { $id }
run-not-stored = 実行（未保存）
html-ratio-chart = { $baseline } に対する { $metric }
html-ratio-axis = 基準に対する比（倍）
html-ratio-metric-with-ops = { $metric }（ops/s と書いた行は ops/s）
html-relative-to = { $unit }、{ $baseline } に対する比
html-noise = { $ratio }×（重なり）
compare-rows-not-comparable = { $count } 行は比較できない: 負荷のパラメータが違う（行に記す）。比は出さない
compare-no-shared-row = 二つ以上の対象で測った行がない: 実行に共通の負荷がない（スイートの違う実行は、スイートごとに比べる）
# セルの語。見出しと同じく `heading` で引く: 表示は訳し、ダウンロードはそのまま。
col-row = 行
col-measuring = 測定中
col-incomplete = 未完了
col-complete = 完了
col-file = ファイル
col-block-device = ブロックデバイス
col-directory = ディレクトリ
col-yes = はい
col-no = いいえ

## history と sweep (src/report/history.rs, sweep_table.rs)
history-best-of = { $n } 回の最高
history-one-run = 1 回
history-together = { $n } 回まとめて
history-short-queries = { $test } クエリ
history-vdbench-average = 平均行
history-search-score = { $job }: レイテンシ上限つきスコア、{ $bound }
history-search-lower-bound = 。下限値: 制限なしでも上限を超えなかった
history-search-none-held = { $job }: 上限を守れた負荷はない（{ $bound }）
# 値を短く: 1 行に 1 実行（history、Web UI の一覧）。
history-short-read-write = 読み書き
history-short-block-read = ブロックリード
history-short-seq-read = 順次リード
history-short-all = { $test } 全操作
history-short-search = { $job } { $stat } < { $limit }
history-short-search-lower = { $job } { $stat } < { $limit }（制限なし）
history-short-search-none = { $job }: { $stat } < { $limit } を守れず
history-incomplete-star = *: { job-stopped-early }。値は実行した分のもの
history-short-read = リード
history-short-write = ライト
## 端末より広い表 (src/report/fit.rs)
fit-dropped = { $columns }: { $width } 桁に収めるため省いた（--wide で表示する）
fit-more = {" "}ほか { $n } 列
fit-cut = …: { $width } 桁に収めるため切り詰めた（--wide で全文を表示する）
sweep-all-read = 読み込み 100 %
sweep-all-write = 書き込み 100 %
sweep-mix = 読み込み/書き込み { $mix }
sweep-note =
    IOPS とスループットは読み書きの合計、実行の平均。
    MiB/s = 2^20 バイト/秒。
sweep-random = ランダム
sweep-sequential = シーケンシャル
sweep-on = 対象 { $path }
col-read = 読み込み
col-write = 書き込み
col-trim = trim
col-total = 合計
col-mix = 混合

## レイテンシ上限の探索 (src/report/latency_table.rs, html/latency.rs)
search-title = { $title }: レイテンシ上限の探索、{ $bound }
search-unthrottled = 制限なし
search-best = { $verdict }（最良）
search-short-note = 不足: その段は要求した速度の { $pct } % 未満しか出せなかった（運べた段の回数でも起こりうる不足分を除いて）。その負荷は運べなかった。
search-short-cap = { $shape } では同時に処理中にできる操作は最大 { $inflight } 個: 最も高い不足の段の平均レイテンシ { $latency } では、最大でおよそ { $max } IOPS しか完了しない（リトルの法則）。より多く要求するには { $raise } を増やす。
search-lower-bound = スコアは下限値: 探索が要求したどの負荷も上限を超えなかった。
search-lower-bound-hint = スコアは下限値: 探索が要求したどの負荷も上限を超えなかった。レイテンシが上限を超える点を見つけるには、同時に処理中の操作を増やす: { $raise } を増やす。
search-held-target = { $shape } では同時に処理中の操作は最大で { $cap } 個のうち { $inflight } 個で、操作はターゲットで待たされた: 平均レイテンシは最も負荷の低い段の { $growth } 倍、kura のスレッドの CPU 使用はスレッドあたり 1 コアの { $cpu } %{ $device }。限界はターゲット: 負荷を増やしてもそこで長く待つだけなので、スコアは上限内でターゲットが出せる最大であり、下限値ではない。
search-held-cpu = kura のスレッドはスレッドあたり 1 コアの { $cpu } % を使い、同時に処理中の操作は最大でも { $cap } 個のうち { $inflight } 個: 負荷を止めたのはターゲットではなくクライアントの CPU。CPU を空ける（マシンの負荷を確認する）か、より多くのクライアントから負荷をかける。
search-held-unknown = kura の CPU（スレッドあたり 1 コアの { $cpu } %）もジョブのキュー（同時に処理中は最大でも { $cap } 個のうち { $inflight } 個）も満杯ではなかった{ $device }: 何が負荷を止めたかは kura には分からない（クライアントかターゲットの別のプロセス、またはターゲット自体）。
search-device-busy = 。デバイスは段の { $pct } % の間ビジーだった
search-device-idle = 。デバイスは段の { $pct } % しかビジーでなかったので、操作はその上で待たされた（cgroup などのスロットル、またはデバイスの上の層）
search-shape-block = qd { $qd } x { $threads } スレッド
search-raise-qd-threads = qd かスレッド数
search-raise-sync = スレッド数、または io_uring エンジンと direct I/O での qd（sync エンジンはスレッドごとに 1 つの I/O しか処理中にしない）
search-raise-threads = スレッド数（この種類のスレッドは一度に 1 操作）
search-raise-ceiling-qd = ジョブの qd（この探索の上限）
search-raise-ceiling-threads = ジョブのスレッド数（この探索の上限）
search-best-step = 最も高い負荷で上限を守った段:
search-capacity-title = レイテンシ上限つきの処理能力 · { $bound } · { $baseline } に対する比
html-latency-curve-caption = 測った段ごとに 1 点、要求した負荷の順。破線が上限。統計値が上限以下に収まり、要求した速度の 95 % 以上を出した段を「維持」とする。
col-held = 維持
col-crossed = 超過
col-short = 不足

## 長い実行の系列に起きたこと (src/metrics/changes.rs, steady.rs)
change-figure-iops = IOPS
change-figure-mean-latency = 平均レイテンシ
change-stopped = { $figure } は { $when } に止まった（{ $before } から 0 へ）
change-resumed = { $figure } は { $when } に再開した（0 から { $after } へ）
change-rose = { $figure } は { $when } に { $size } 上昇した（{ $before } から { $after } へ）
change-fell = { $figure } は { $when } に { $size } 低下した（{ $before } から { $after } へ）
change-changed-again = { $what }。{ $periods } 区間続いた後、再び変わった
change-stayed = { $what }。その後も戻らなかった: { $why }
change-why-iops-fell = バーストクレジットの枯渇、スロットリング、またはデバイスのキャッシュが一杯になったか？
change-why-iops-rose = キャッシュや階層（ティア）が温まったか、デバイスへの他の負荷が終わったか？
change-why-latency-rose = IOPS は一定: レート上限が保たれたままデバイスが遅くなったか？
change-why-latency-fell = IOPS は一定: レート上限の下でデバイスが速くなった
change-unsteady = { $figure } は { $periods } 区間で { $shift } % を超える水準の変化を { $steps } 回繰り返した: 一つの段差では説明できないので、大きい順に { $told } 件を示す。ノイズだけなら、長い区間（--interval）でならされる
change-drift-up = { $figure } は { $over } かけて { $pct } % 上がり続けた（直線あてはめで { $from } から { $to } へ）。単一の段差はない: デバイスの使用領域の増加、摩耗、ガベージコレクション、または他からの負荷の増加か？
change-drift-down = { $figure } は { $over } かけて { $pct } % 下がり続けた（直線あてはめで { $from } から { $to } へ）。単一の段差はない: デバイスの使用領域の増加、摩耗、ガベージコレクション、または他からの負荷の増加か？
change-spikes = p99 レイテンシが中央値（{ $median }）の { $factor } 倍を超えた区間は { $periods } 区間中 { $count }（{ $share } %）。最初は { $first }、最悪は { $worst_at } の { $worst }
change-marker-rose = { $size } 上昇
change-marker-fell = { $size } 低下
change-marker-worst-p99 = 最悪の p99
steady-reached = ラウンド { $last } で定常状態（SNIA PTS 2.0.2）: ラウンド { $first }-{ $last } の { $unit } は平均 { $average }、その範囲は平均の { $range } %（上限 20 %）、近似直線の変化は { $slope } %（上限 10 %）
steady-not-reached = { $rounds } ラウンド後も定常でない（SNIA PTS 2.0.2 の規則）: ラウンド { $first }-{ $last } の { $unit } の範囲は平均の { $range } %（上限 20 %）、近似直線の変化は { $slope } %（上限 10 %）。数値はデバイスの定常状態ではない
steady-too-few = { $rounds } ラウンドで止まった。定常状態の判定に要る 5 ラウンドに届かない
steady-chart-title = 定常になるまでのラウンド · { $job }
steady-window = 定常の窓
steady-last-window = 最後の窓（定常でない）
steady-round = ラウンド

## レイテンシ上限の探索の結果 (src/metrics/latency_bound.rs, src/report/latency_table.rs)
search-never-crossed = 制限なしでも{ $stat }レイテンシは { $limit } 未満だった: >= { $iops } IOPS（{ $stat } { $latency }）。上限は一度も超えなかったので、これは下限値
search-highest = { $stat }レイテンシを { $limit } 未満に保った最も高い{ $what }: { $load }
search-highest-lower-bound = { $stat }レイテンシを { $limit } 未満に保った最も高い{ $what }: { $load }。下限値: どの段も上限を超えなかった
search-highest-target = { $stat }レイテンシを { $limit } 未満に保った最も高い{ $what }: { $load }。ターゲットが出せた最大: それ以上の負荷はターゲットで待たされただけ
search-never-crossed-target = 制限なしでも{ $stat }レイテンシは { $limit } 未満だった: { $iops } IOPS（{ $stat } { $latency }）。ターゲットが出せた最大: それ以上の負荷はターゲットで待たされるだけ
search-rate-delivered = { $iops } IOPS を達成（要求 { $offered }）
search-none-held = 試したどの{ $what }でも{ $stat }レイテンシは { $limit } 未満に収まらなかった
search-load-rate = 要求レート
search-load-qd = キュー深度
search-load-threads = スレッド数
search-threads-iops = { $threads } スレッド（{ $iops } IOPS）
search-threads = { $threads } スレッド
search-bound-rate = { $stat }レイテンシ { $limit } 未満、要求レートを上げる
search-bound-qd = { $stat }レイテンシ { $limit } 未満、キュー深度を上げる
search-bound-threads = { $stat }レイテンシ { $limit } 未満、スレッド数を上げる
search-steps-table = { $name }: 探索の段（{ $bound }）
search-line-steps = { $name }（{ $steps } 段）
search-line-limit = 上限 { $limit }
col-probe = 予備測定
col-climb = 上昇
col-descend = 下降
col-refine = 絞り込み
search-chart-title = { $name }: 負荷ごとの { $stat }レイテンシ
search-axis-qd = スレッドあたりのキュー深度
search-axis-latency = { $stat }レイテンシ（対数目盛）
search-none-held-cell = 維持した段なし

## tiobench (src/report/tiobench_table.rs, runs.rs)
io-buffered = バッファード
tiobench-setup = { $threads } スレッド × { $size } のファイル、{ $bs } ブロック、{ $io }、エンジン { $engine }
tiobench-runs-note = 各テストを { $runs } 回実行した。行はその全実行を合わせたもの。
tiobench-differences =
    tiotest と意図して違う点: --file-size はスレッドごとの大きさ（tiotest の -f。
    tiobench.pl の --size は合計）。新しいファイルはランダムなデータで埋める
    （tiotest は ftruncate するだけ）。
col-sequential-write = シーケンシャル 書き込み
col-sequential-read = シーケンシャル 読み込み
col-random-write = ランダム 書き込み
col-random-read = ランダム 読み込み
col-avg-ms = 平均ms
col-max-ms = 最大ms
col-avg-lat-ms = 平均遅延 ms
col-max-lat-ms = 最大遅延 ms
col-cpu-eff = CPU効率
tiobench-cpu-eff-short = 効率
suite-mem-limit = メモリ上限 { $limit }（--mem-limit）

## bonnie++ の表 (src/report/bonnie_table.rs): bonnie++ の桁位置を保つので、
## 見出しの行は英語版と同じ表示幅にする（テストが確かめる）。
bonnie-io-groups = -----シーケンシャル出力------ シーケンシャル入力- -ランダム
bonnie-io-tests = -文字単位 -ブロック -書き換え -文字単位 -ブロック -シーク--
bonnie-file-groups = -----シーケンシャル作成------ --------ランダム作成---------
bonnie-file-tests = ---作成-- -読み込み ---削除-- ---作成-- -読み込み ---削除--
bonnie-name-size = 名前:サイズ等
bonnie-files = ファイル数
bonnie-latency = レイテンシ
bonnie-mean = 平均
bonnie-too-short =
    +++++: テストが 0.5 秒未満で終わり、bonnie++ が報告するには短すぎる。
    kura が測った速度は --json にある。
bonnie-mean-note = 平均: 全実行の仕事量を合計時間で割ったもの。レイテンシは全実行の最悪値。
bonnie-file = { $size } のファイル
bonnie-small-files = 小ファイル { $count } 個
list-separator = 、

## vdbench の集計 (src/report/vdbench_summary.rs): 列見出しは vdbench のまま
vdbench-title = vdbench 形式のレポート
vdbench-note = （列見出しは vdbench のまま。resp は応答時間でミリ秒、queue depth はキュー深度で rate × resp、cpu% は全コアに対する kura のスレッドの割合）
vdbench-note-narrow = （列見出しは vdbench のまま。resp は応答時間でミリ秒、queue depth はキュー深度で rate × resp、cpu% は全コアに対する kura のスレッドの割合。resp max、resp stddev、cpu% sys は --wide で表示）

## kura suite db (src/report/db_table.rs, html/db.rs): テスト名は sql-bench と sysbench のまま
dbrun-differences =
    秒数は sql-bench の合計と同じくテストごと。回数は sql-bench の回数の
    --scale 倍で、各データベースの方言で実行する（違いは docs/db.md）。
    ストレージの差が出るのはコミットの列（トランザクション外の書き込みは
    それぞれコミット）。SELECT はほとんどキャッシュから応える。
dbrun-stopped-early = * 途中で停止: 秒数は実行できた分
dbrun-oltp-shape = oltp_read_write: { $tables } テーブル × { $rows } 行、{ $threads } スレッド、{ $seconds } 秒
dbrun-oltp-transactions = トランザクション: { $transactions }（毎秒 { $tps }）   クエリ: 毎秒 { $qps }
dbrun-oltp-latency = レイテンシ: 最小 { $min }  平均 { $avg }  最大 { $max }
dbrun-oltp-percentiles = 95 パーセンタイル { $p95 }  99 パーセンタイル { $p99 }
dbrun-server-in = { $place } の { $server }
dbrun-runs-differ = 注: 実行ごとに { $setting } が違う（{ $values }）
dbrun-compare-legend =
    x名前 = 名前 / { $base }（基準）。
    s と p95 ms は小さいほど良く、tps は大きいほど良い。
col-seconds = 秒
col-queries-s = クエリ/秒
col-commits = コミット
col-commit-p50 = コミットp50
col-commit-p99 = コミットp99
col-select-p50 = SELECT p50
col-unit = 単位
html-db-chart = テストごとの秒数（短いほど速い）
html-db-chart-caption = テストごとの秒数（sql-bench の報告と同じ）。実行ごとに 1 色。
col-seconds-per-test-and-the-99th-percentile-of-commits = テストごとの秒数とコミットの 99 パーセンタイル
col-oltp-mix-sysbench-oltp-read-write = OLTP 混合負荷（sysbench oltp_read_write）
col-tables-x-rows = テーブル × 行
col-transactions-s = トランザクション/秒

## kura explain (src/report/explain.rs): fio のオプション名（rw、bs、qd）はそのまま
explain-file = { $file }: { $format } ファイル、ジョブ { $jobs } 件
explain-cannot-run = 実行できない: { $why }
explain-note = 注:{" "}
explain-ios = { $count } I/O
explain-passes = { $passes } パス
explain-or = { $amount }か { $runtime }
explain-default-runtime = 10s（既定）
explain-rate-searched = 探索
explain-rate-of-max = 最大の { $pct }%
explain-rate-max = 最大
explain-seek = {" "}(シーク{ $pct }%)
explain-read-pct = 読込%
explain-target = 対象: { $target }
col-group = グループ
col-offset = オフセット
col-stop = 停止
col-ramp = ランプ
col-rate = レート
col-direct = ダイレクト

## 進行表示（stderr） (src/runner/progress.rs)
progress-writing = 書き込み中
progress-left = 残り { $time }
progress-now = 現在 { $iops } IOPS { $mbps } MB/s
progress-last-min = 直近 1 分 { $iops } IOPS { $mbps } MB/s
progress-done = 完了: { $iops } IOPS { $mbps } MB/s（ジョブの結果）
progress-preparing = { $job }: { $path } を準備中
progress-preparing-file-set = { $job }: { $path } にファイルセットを準備中
progress-round = { $job }: ラウンド { $round }（{ $tracked } が定常になるまで）
progress-together = 同時に実行: { $jobs }
progress-latency-step = { $job }: レイテンシの段 { $step }（{ $phase }）: { $load }

## HTML レポートのグラフと名前 (src/report/html/mod.rs, suites.rs)
html-run-unstored = 実行 #{ $n }
html-axis-mbps = MB/s（10^6 バイト/秒）
html-axis-mibps = MiB/s（2^20 バイト/秒）
html-sweep-mix = 読み込み/書き込み { $mix }
html-sweep-chart = ブロックサイズごとの { $what }、{ $mix }
html-sweep-caption = ブロックサイズに対する { $what }。対象ごとに 1 本の線、読み込みと書き込みの合計、繰り返しの平均。
html-sweep-table = スイープ、{ $mix }
html-sweep-axis = ブロックサイズ（バイト、対数目盛）
html-axis-time-of-day = 時刻（UTC）
html-axis-time = 測定開始からの時間（{ $unit }）
html-band-ramp = ランプ（測定しない）
html-band-measure = 測定
html-line-write-iops = 書き込み IOPS
html-line-read-iops = 読み込み IOPS
html-iops-over-time = IOPS の推移 · { $title }
html-axis-percentile = パーセンタイル（%）、1 - p の対数目盛
html-axis-latency = レイテンシ（対数目盛）
html-axis-share = I/O の割合（%）
html-axis-latency-unit = レイテンシ（{ $unit }）
# bonnie++ のテスト名（compare と HTML レポートの行）
col-sequential-output-per-chr = シーケンシャル出力 文字単位
col-sequential-output-block = シーケンシャル出力 ブロック
col-sequential-output-rewrite = シーケンシャル出力 書き換え
col-sequential-input-per-chr = シーケンシャル入力 文字単位
col-sequential-input-block = シーケンシャル入力 ブロック
col-random-seeks = ランダムシーク
col-sequential-create = シーケンシャル作成
col-sequential-stat = シーケンシャル stat
col-sequential-delete = シーケンシャル削除
col-random-create = ランダム作成
col-random-stat = ランダム stat
col-random-delete = ランダム削除
col-create = 作成
col-delete = 削除
warning-bonnie-file-cached = { $size_mb } MiB のテストファイルは kura が使えるメモリ { $memory_mb } MiB に収まる: ページキャッシュに全部入るので、I/O の数値はデバイスではなくメモリを測ることになる（bonnie++ は RAM の 2 倍を使う）
compare-run-stopped-early = { $name }: 実行 { $id } は途中で止められた。数値は実行できた分だけのもの

## stderr の行 (src/commands/)
note-prefix = kura: 注:{" "}
note-separator = 。
note-testing-in-directory = ディレクトリ { $dir } で測る: テストファイル { $file }
note-smaller-than-default-size = { $path } は { $size } で既定の --size { $default } より小さい: 全体を測る
output-replacing = kura: { $path } を置き換える
output-wrote = kura: { $path } に書いた
output-wrote-report = kura: { $path } に書いた（実行 { $runs } 件、{ $kib } KiB）

## よく出るエラー (src/main.rs, store/, targets/file.rs, commands/compare.rs)。
## ほかは英語のまま（docs/i18n.md）
error-prefix = エラー:{" "}
error-no-database = { $path } にデータベースがない（--db を確かめる。実行を保存する動詞なら作られる）
error-no-run = 「{ $spec }」に合う実行がない（kura history で確かめる）
error-ambiguous-run = 「{ $spec }」は { $count } 件の実行に合う（{ $ids }）。実行 ID を指定するか、--latest を付ける
error-ambiguous-run-repeats = 「{ $spec }」は { $count } 件の実行に合う（{ $ids }）。実行 ID を指定するか、最新を取るなら --latest、すべてを一つの対象の繰り返しとして取るなら --repeats を付ける
error-compare-named-twice = 実行 { $id } が二度指定された（「{ $spec }」とそれより前の引数）: 別々の実行を比べる
error-compare-baseline-not-compared = --baseline「{ $spec }」（実行 { $id }）は比べる実行に含まれない
error-compare-two-runs = 比べる実行を 2 つ以上指定する（ID、ラベル、または latest）
error-no-directory = ディレクトリ { $dir } がない
error-file-locked = 別のプロセスがこのファイルをロックしている（別の kura の実行？）。一つのファイルに二つの実行があると互いの I/O を測って二重に保存するので、それが終わるのを待つ
error-file-locked-pid = 別のプロセス（pid { $pid }）がこのファイルをロックしている（別の kura の実行？）。一つのファイルに二つの実行があると互いの I/O を測って二重に保存するので、それが終わるのを待つ

## 比較できない行の理由（src/report/compare/rows.rs、capacity.rs）
diff-none = なし
diff-both = { $a } 対 { $b }
diff-param = { $noun } { $a } 対 { $b }
diff-null-engine = null エンジン（I/O なし）
diff-real-io = 実際の I/O
diff-target = { $name }: { $why }
diffword-direct = ダイレクト
diffword-buffered = バッファード
diff-access = アクセス
diff-block-size = ブロックサイズ
diff-read-share = 読み込みの割合
diff-queue-depth = キュー深度
diff-threads = スレッド数
diff-test-size = テストサイズ
diff-distribution = 分布
diff-gap = 間隔
diff-mix = 操作の比率
diff-depth = 深さ
diff-width = 幅
diff-files-per-directory = ディレクトリあたりのファイル数
diff-file-size = ファイルサイズ
diff-memory-limit = メモリ上限
diff-synchronous-writes = 同期書き込み
diff-server = サーバー
diff-scale = スケール
diff-server-sync = サーバーのコミットの同期
diff-tables = テーブル数
diff-table-size = テーブルの行数
col-p99-latency = p99 レイテンシ
capacity-short-bound = { $stat } { $limit } 未満・{ $load }
capacity-no-search = この実行にレイテンシ上限の探索がない
capacity-other-bound = 上限 { $bound }（基準: { $baseline }）
capacity-heading = レイテンシ上限内の性能 · { $bound } · { $baseline } に対する比
capacity-none-held = 保てた負荷なし
capacity-note = スコア: 上限を保てた最も高い負荷、IOPS（実行の平均）。相対: スコア / 基準のスコア。スコアを並べるのは上限、統計量、負荷の種類がそろうときだけ。
capacity-lower-bound = 下限値
capacity-lower-bound-note = 「>=」は下限値: その探索は上限を一度も超えなかったので、対象は少なくともそれだけ運べる。対象のスコアが下限値の比は下限値（「>=」）、基準のスコアが下限値の比は上限値（「<=」）、両方なら不明（「?」）。
capacity-conclusion-at-least = { $target } は { $bound } で { $baseline } の少なくとも { $ratio } 倍の負荷を運べる: スコアは下限値で、探索は上限を一度も超えなかった。
capacity-conclusion-at-most = { $target } は { $bound } で { $baseline } の多くとも { $ratio } 倍の負荷を運べる: 基準のスコアが下限値で、その探索は上限を一度も超えなかった。
capacity-conclusion-unknown = { $target } も { $baseline } も上限を超えなかった: どちらのスコアも下限値なので、{ $ratio } 倍からはどちらが多く運べるかも、その差もわからない。
compare-per-price-heading = { $name } { $unit }（{ $currency }/月あたり）
compare-per-price-ratio-heading = { $name }/{ $baseline }（{ $currency } あたり、価格 { $ratio } 倍）
compare-guidance-markdown = 助言
compare-markdown-warning = 警告
compare-name-with-runs = { $name }（実行 { $ids }）
compare-prices-differ = { $name }: 実行ごとに価格が違う（{ $first } と { $other }）。最初のものを使う
compare-no-price = { $name } には価格がないので、価格あたりの性能もない。`kura label RUN --price "金額 通貨/month"` で付ける
compare-currencies-differ = 価格の通貨が違う（{ $currencies }）: kura は通貨を換算しないので、価格比は同じ通貨の基準に対してだけ出す

## bonnie++ と suite db の各段の説明（進捗表示）
step-repetition = {"（"}{ $runs } 回中 { $repetition } 回目）
bonnie-step-put-char = { $size } を 1 バイトずつ書き込み中
bonnie-step-put-block = { $size } を { $block } バイトのブロックで書き込み中
bonnie-step-rewrite = { $size } を書き換え中
bonnie-step-get-char = { $size } を 1 バイトずつ読み込み中
bonnie-step-get-block = { $size } を { $block } バイトのブロックで読み込み中
bonnie-step-seeks = { $seekers } プロセスで { $seeks } 回シーク中
bonnie-step-files = ファイル { $files } 個
dbrun-step-atis = 航空会社の表: 作成、1 行ずつの投入、結合と集計
dbrun-step-alter-table = 列とインデックスを ALTER 1 回ずつ追加・削除
dbrun-step-big-tables = 1000 列の表: 行全体の SELECT と INSERT
dbrun-step-connect = 接続と切断、単純な SELECT、65000 バイトの BLOB
dbrun-step-create = 多数の表の作成・件数・削除、作成と削除の繰り返し
dbrun-step-insert = 3 × N 行を 1 行 1 コミットで INSERT、SELECT、UPDATE、DELETE
dbrun-step-select = 多部分キーでの SELECT: 範囲、min/max、集計
dbrun-step-wisconsin = Wisconsin ベンチマークの表とクエリ
dbrun-step-oltp-read-write = sysbench の oltp_read_write トランザクション

## IO500 相当のスイートのページ（段階の名前と [SCORE] の行は IO500 のまま）
io500-title = IO500 相当（公式のハーネスではない）· ランク { $ranks }、ストーンウォール { $stonewall }
io500-not-run = 未実行
io500-like-mark = （IO500 相当）
io500-stonewall = ストーンウォール { $phase }: 期限 { $at }（ランク別 { $min }〜{ $max }）、ウェアアウト後 { $ops }
io500-before-stonewall = ストーンウォールの前にファイルを終えた段階（IO500 はこれを INVALID とする。大きいサイズを指定する）: { $phases }
io500-differences =
    IO500 相当（公式のハーネスではない）。意図して違う点: find は実行しない
    （メタデータの平均に入らない）。mdtest の各系列は段階を 1 つのジョブで
    続けて実行する（create、stat、[read、] delete）。ior の段階の間ではなく、
    各ランクは自分のファイルを扱う（mdtest -N 1 は隣のランクのもの）。
    ファイルは固定の大きさ（--easy-size、--hard-segments）で、作るときに
    埋める。書き込みの段階はストーンウォールかファイルの終わりで終わる。
col-value = 値
col-time-s = 時間 秒
col-operations = 操作数
warning-database-under-mem-limit = データベースのディレクトリは最大 { $data_mb } MB で、--mem-limit は kura とサーバーに { $limit_mb } MB のメモリを許した: SELECT はメモリから応えたかもしれない。データより小さい --mem-limit なら読み込みもストレージに届く
warning-oltp-retried = { $job }: { $count } 件のトランザクションがデッドロックか重複キーに当たり、ロールバックしてやり直した（sysbench の「ignored errors」）。数に入れない
warning-scattered-cache = { $job }: 開始時、その { $files } 個のファイルにはキャッシュされたページ { $pages } 個が { $runs } か所に散らばっていた（前のジョブが残したもの: 実行はキャッシュを残し（tiobench と同じ）、メモリ上限が残りを追い出す）。先読みはそれぞれを避けて読むので、デバイスへの読み出しはその間の隙間（平均 { $gap_kib } KiB）より大きくならず、最大 { $readahead_kib } KiB にはならない。IOPS に上限のあるディスクでは、順次読み出しは帯域ではなくその上限 x 隙間の大きさで頭打ちになる。fio の既定（invalidate=1）は空のキャッシュから始め、--direct はキャッシュを通らない
warning-too-short = { $count ->
        [one] { $jobs } の
       *[other] { $count } 個のジョブ（{ $jobs }）の
    }測定は { $min } 秒未満（最短 { $measured } 秒）: レートを信じるには短すぎる（デバイスやスロットルが許す一時的な速さ、キャッシュの最初の充填、タイマーが効く。bonnie++ はこのようなテストに +++++ を出す）。--runtime を長くするか操作を増やす
warning-and-more = {" "}ほか { $count } 個
warning-latency-tail = { $job }: { $direction } の p99 レイテンシ { $p99 } は平均 { $mean } の { $ratio } 倍（{ $limit } 倍超）: キューイングでは説明できないほど長く待った操作がある（スロットルやデバイスの限界での停滞など）

## 多数のランクの実行: ホストごとの表
hosts-title = { $hosts } 台のホストで { $ranks } ランク、実行の全ジョブの合計:
hosts-jobs = { $jobs } ジョブ
hosts-spread = ばらつき: 最も遅いホスト { $slowest } のランクあたりの速さは最速（{ $fastest }）の { $ratio } 倍。最も遅いランクを { $jobs } ジョブ中 { $count } ジョブで出した
compare-hosts-title = ホストごと（多数のランクの実行）、全ジョブの合計
compare-hosts-markdown-title = ホストごと（多数のランクの実行）
col-ranks = ランク数
col-ops-s-per-rank = 操作/秒/ランク
col-vs-fastest = 最速との比
col-slowest-in = 最遅ランク
html-compare-prices-left-out = 価格は比較に入れなかった: { $why }
html-compare-no-shared-row = 基準の行を測った実行がほかにない。
section-random = ランダム
section-sequential = シーケンシャル
section-read = 読み込み
section-write = 書き込み
section-read-pct = 読み込み { $pct } %
section-buffered = {" "}バッファード
history-incomplete = （未完了）
history-unreadable = 読めない: { $why }
history-none-stored = 保存された実行はまだない: `kura mark` か `kura run` を試す
history-none-matched = { $filter } に合う実行はない。保存されている実行は { $total } 件: { $suites }
# seed 4: targets run several times (compare/repeats_view.rs)
compare-volume-on = { $device } 上の { $fs }
compare-run-n = 実行 { $n }
compare-repeats-heading = { $row } · 実行ごとの { $metric } とその{ $figure } · { $baseline } との比
col-size-plan = 容量/プラン
col-resp-time = 応答時間
col-best = 最良
html-target-runs = { $name }（{ $count } 回の実行）
# seed 5: bonnie++ across targets (compare/suite_view.rs)
compare-bonnie-heading = bonnie++ · 対象ごとの bonnie++ の単位のレートと最悪レイテンシ · { $baseline } に対するレート比
compare-bonnie-short = *: テストが 0.5 秒未満で、bonnie++ なら報告しない（+++++ と表示する）短さ。kura が測ったレートを示す。
compare-bonnie-names = テストは bonnie++ 自身の名前（CSV の名前）: putc、put_block、rewrite = シーケンシャル出力の文字単位、ブロック、書き換え。getc、get_block = シーケンシャル入力の文字単位、ブロック。seeks = ランダムシーク。seq_create、seq_stat、seq_del と ran_create、ran_stat、ran_del = シーケンシャルとランダムの作成、stat、削除。
col-latency = レイテンシ
col-thr = thr
col-identifier = 識別子
compare-bonnie-legend = レートは bonnie++ の単位（K/sec: 毎秒 KiB、/sec: 毎秒のシークまたはファイル数）、レイテンシは最も遅かった 1 操作で、bonnie++ の表示どおり。xNAME = NAME のレート / { $baseline } のレート、高いほど良い。
html-tiobench-compare = tiobench（tiobench.pl の表の形: テストごとに 1 表、対象とスレッド数ごとに 1 行）
html-db-ratio-chart = { $baseline } に対する各テストの比
html-db-ratio-caption = sql-bench の各テストの秒数と OLTP 混合負荷の毎秒トランザクション数と p95 を基準で割った値。秒数と p95 は 1 未満が速く、tps は 1 を超えると速い。
html-db-compare = テストごとの秒数と OLTP 混合負荷（{ $baseline } との比）
html-scores-chart = { $baseline } に対するレイテンシ制約付きスコア

# kura suite pts (docs/pts.md)
warning-pts-purge = { $test }: { $method } でパージした（デバイス全体に BLKDISCARD）。NVMe format/sanitize と ATA secure erase はまだ kura が実行しない
warning-pts-purge-span = { $test }: { $method } でパージした（--size で決めた範囲、デバイスの先頭 { $span } に BLKDISCARD。残りはパージしていない）。NVMe format/sanitize と ATA secure erase はまだ kura が実行しない
warning-pts-no-purge = { $test }: パージしていない: 対象は通常ファイルで、ファイルの下のフラッシュに届くパージはない。PTS はパージを求める
warning-pts-not-conforming = SNIA PTS 2.0.2 に適合しない: --scale { $scale } でラウンド時間と書き込み量を縮めた。概観用のみ
warning-pts-write-cache = { $device }: 揮発性ライトキャッシュが有効（{ $state }）。PTS-E は無効（WCD）、PTS-C は有効（WCE）を求める: この点でこの実行は PTS-C のもの。kura は変更しない: 無効にするには `hdparm -W 0`（ATA）か `nvme set-feature -f 6 -v 0`（NVMe）
pts-purged = パージ済み（{ $method }）
pts-not-purged = パージなし
pts-steady = 定常、測定窓はラウンド { $first }-{ $last }（全 { $rounds }）
pts-not-steady = { $rounds } ラウンド後も定常でない
pts-ws-intervals = { $intervals } 区間
# HTML レポートの PTS ページ (src/report/html/pts.rs)
html-pts = SNIA PTS 2.0.2: テストごとの定常状態と結果
html-pts-no-tests = この実行には、ラウンドで走った PTS テストも飽和曲線を書いたテストもない。
html-pts-not-conforming = 規格不適合（NOT CONFORMING）
html-pts-tracked = { $point }（判定対象）
html-pts-convergence = 定常状態への収束 · { $test }
html-pts-convergence-caption = { $verdict }。線: 定常状態の判定に使う点（判定対象）と、同じ R/W 混合の他の点（TP は読み書き両方）の、ラウンドごとの追跡変数（{ $unit }）。網掛け: 測定窓。
html-pts-window = 定常状態の測定窓 · { $test }
html-pts-average = 平均 { $average }
html-pts-fit = 最小二乗直線
html-pts-holds = 両方を満たすので定常
html-pts-fails = 両方は満たさないので定常でない
html-pts-window-caption = 判定対象の点のラウンド { $first }-{ $last } の { $unit }、その平均（{ $average }）と平均の ±10 % と ±20 % の網掛け、最小二乗直線。PTS の規則: 値の範囲が平均の 20 % 以内（ここでは { $range } %）、直線の窓全体での変化が 10 % 以内（{ $slope } %）。{ $verdict }。
html-pts-iops-table = { $test }: IOPS、測定窓の平均（ブロックサイズ × R/W 混合）
html-pts-iops-chart = { $test }: ブロックサイズごとの IOPS（R/W 混合ごとに 1 本）
html-pts-iops-caption = 各点の IOPS を測定窓のラウンドで平均した。両軸とも対数目盛。
html-pts-tp-table = { $test }: スループット、測定窓の平均
html-pts-tp-chart = TP: ブロックサイズと方向ごとの MB/s
html-pts-tp-caption = 各ブロックサイズの連続読み込みと書き込みを、TP テストごとの測定窓で平均した（ブロックサイズごとに別のテストで、それぞれパージとプリコンディショニングを行う）。
html-pts-lat-table = { $test }: レイテンシ、測定窓の平均
html-pts-lat-chart = { $test }: 各点の平均と最大レイテンシ
html-pts-lat-caption = 平均レイテンシ（読み書きを I/O 数で重み付け）と測定窓のラウンドでの最大レイテンシ。ブロックサイズと R/W 混合ごと、対数目盛。
html-pts-ws-table = { $test }: 書き込み飽和ジョブ全体（4 KiB ランダム書き込み）
html-pts-ws-no-series = WS: 区間ごとの系列が記録されていないので曲線はない。
html-pts-ws-time = WS: 時間に対する IOPS
html-pts-ws-time-caption = 4 KiB ランダム書き込み: 書き込み飽和ジョブの { $period } 区間ごとに完了した毎秒 I/O 数。
html-pts-ws-written = WS: 書き込み量に対する IOPS
html-pts-ws-written-caption = 同じ { $period } 区間を、各区間の中ほどまでの総書き込み量に対して描いた（MB = 10^6 バイト）。
html-axis-log = { $unit }（対数目盛）
html-axis-written = 書き込み量（{ $unit }）

## Runs of many ranks: the lines under the ranks' table (src/report/cluster_table.rs)
ranks-on-hosts = { $ranks } ランク、{ $hosts } ホスト、{ $placed }
ranks-share-file = 各ランクが共有ファイル 1 つの持ち分で
ranks-own-file = 各ランクが自分のファイル（PATH.RANK）で
ranks-share-set = 各ランクがファイルセット 1 つのファイルの持ち分で
ranks-own-set = 各ランクが自分のファイルセット（ANCHOR/kura-rank-RANK）で
ranks-spread = ばらつき: 最速ランクは最遅の { $ratio } 倍（ランク { $rank }、{ $host }）。合計の p99 は全ランクの I/O をまとめたもの
ranks-first-last = 最初の終了 { $first_s } 秒: { $first_iops } IOPS、{ $first_mbs } MB/s · 最後の終了 { $last_s } 秒: { $last_iops } IOPS、{ $last_mbs } MB/s
ranks-stonewall = ストーンウォール { $deadline_s } 秒: 期限時点のランクごとの操作数 最小 { $min } 最大 { $max }。期限時点で { $iops } IOPS、{ $mbs } MB/s · 全ランクが { $max } 操作を終えた後: { $last_iops } IOPS、{ $last_mbs } MB/s
