//! A worker on loopback answers Info with the right token and refuses calls without it.

use std::time::Duration;

use leaper_proto::v1::worker_client::WorkerClient;
use leaper_proto::v1::InfoRequest;
use leaper_proto::{bearer, AUTHORIZATION, FORMAT_VERSION};
use leaper_worker::{serve, WorkerConfig};
use tonic::Request;

fn request(token: Option<&str>) -> Request<InfoRequest> {
    let mut request = Request::new(InfoRequest {});
    if let Some(token) = token {
        request.metadata_mut().insert(AUTHORIZATION, bearer(token).parse().unwrap());
    }
    request
}

#[tokio::test]
async fn info_needs_the_token() {
    let dir = leaper_test_kit::scratch_dir("worker-info");
    let token_file = dir.join("token");
    std::fs::write(&token_file, "s3cret\n").unwrap();
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(dir.join("data").join("job-id"), "job-42\n").unwrap();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let config = WorkerConfig {
        listen: address,
        data_dir: dir.join("data"),
        token_file,
        threads: Some(1),
        tls_cert: None,
        tls_key: None,
        tls_ca: None,
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        serve(&config, listener, async {
            let _ = stopped.await;
        })
        .await
    });

    let mut client = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Ok(client) = WorkerClient::connect(format!("http://{address}")).await {
                return client;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("worker starts");

    let reply = client.info(request(Some("s3cret"))).await.expect("authorised call").into_inner();
    assert_eq!(reply.format_version, FORMAT_VERSION);
    assert_eq!(reply.job_id, "job-42");
    assert_eq!(reply.threads, 1);

    for token in [None, Some("wrong")] {
        let status = client.info(request(token)).await.expect_err("refused");
        assert_eq!(status.code(), tonic::Code::Unauthenticated, "{token:?}");
    }

    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
}
